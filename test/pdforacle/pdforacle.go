// Package pdforacle is the tests' independent PDF reader: pdfcpu reads a
// file as a viewer does (cross-reference table or stream, object streams
// decoded with their filters and predictors, references resolved, a
// broken file repaired), and Names lists the names of contract §7 in
// every object it read. It shares no code with domain/filecheck, whose
// PDF check it judges (the fuzz target FuzzPDFAgainstOracle, the
// real-document corpus). pdfcpu is a test dependency only: no file of
// the service imports this package.
package pdforacle

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// activeNames are contract §7's names (scripts, launch actions,
// attachments, rich media, XFA), spelled here again on purpose: the
// oracles share no code with the check. An attachment needs no /Type
// /EmbeddedFile (ISO 32000-1 Table 44 makes it optional), so the names
// every attachment has are here too: /EmbeddedFiles (the name tree),
// /EF (a file specification's files), /FileAttachment (the annotation).
var activeNames = []string{"JavaScript", "JS", "Launch", "EmbeddedFile", "EmbeddedFiles", "EF", "FileAttachment", "RichMedia", "XFA"}

var config = sync.OnceValue(func() *model.Configuration {
	model.ConfigPath = "disable" // no configuration directory written or read
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	return conf
})

// Names returns the active names pdfcpu finds in the objects it
// reads from pdf, as keys or values, #xx escapes decoded; err when it
// cannot read the file (or fails inside).
func Names(pdf []byte) (found []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			found, err = nil, fmt.Errorf("pdfcpu panicked: %v", r)
		}
	}()
	c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conf := *config()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(pdf), &conf)
	if err != nil {
		return nil, err
	}
	note := func(name string) {
		if d, err := types.DecodeName(name); err == nil {
			name = d
		}
		if slices.Contains(activeNames, name) && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 100 {
			return
		}
		switch v := o.(type) {
		case types.Name:
			note(string(v))
		case types.Dict:
			for k, e := range v {
				note(k)
				walk(e, depth+1)
			}
		case types.Array:
			for _, e := range v {
				walk(e, depth+1)
			}
		case types.StreamDict:
			walk(v.Dict, depth+1)
		case types.ObjectStreamDict:
			walk(v.Dict, depth+1)
		case types.XRefStreamDict:
			walk(v.Dict, depth+1)
		}
	}
	for _, e := range ctx.XRefTable.Table {
		if e == nil || e.Object == nil {
			continue
		}
		o := e.Object
		if lazy, ok := o.(types.LazyObjectStreamObject); ok {
			// An object of an object stream, decoded when first used.
			if o, err = lazy.DecodedObject(c); err != nil {
				continue
			}
		}
		walk(o, 0)
	}
	return found, nil
}
