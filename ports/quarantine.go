package ports

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/lender/disbursementd/domain"
)

// QuarantinedFile is one file in quarantine.
type QuarantinedFile struct {
	Name string
	At   time.Time // when it was quarantined
	// DeleteAfter is when the sweep deletes it.
	DeleteAfter time.Time
	// Named says that a stored row names it again (its row came back, by
	// a restore): Restore can move it back.
	Named bool
}

// Quarantined lists the quarantined files, oldest first, and whether a
// row names each.
func (r *Sweep) Quarantined(ctx context.Context) ([]QuarantinedFile, error) {
	var list []QuarantinedFile
	err := r.uploads.WalkQuarantine(ctx, func(o StoredObject) error {
		list = append(list, QuarantinedFile{Name: o.Name, At: o.ModTime.UTC(), DeleteAfter: o.ModTime.UTC().Add(r.o.QuarantineRetention)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list quarantine: %w", err)
	}
	sort.Slice(list, func(i, j int) bool {
		if !list[i].At.Equal(list[j].At) {
			return list[i].At.Before(list[j].At)
		}
		return list[i].Name < list[j].Name
	})
	for i := 0; i < len(list); i += r.o.Batch {
		part := list[i:min(i+r.o.Batch, len(list))]
		names := make([]string, len(part))
		for j, f := range part {
			names[j] = f.Name
		}
		named, err := r.store.NamedFiles(ctx, names)
		if err != nil {
			return nil, fmt.Errorf("look up quarantined names: %w", err)
		}
		for j := range part {
			part[j].Named = named[part[j].Name]
		}
	}
	return list, nil
}

// Restore moves a quarantined file back to its place, once a stored row
// names it again. Errors: domain.ErrInvalidInput for a name that is not
// an upload name; domain.ErrNotFound when no such file is in quarantine;
// domain.ErrConflict when no row names it (it would be an orphan again)
// or a file of that name is published.
func (r *Sweep) Restore(ctx context.Context, name string) error {
	if err := domain.CheckUploadName(name); err != nil {
		return err
	}
	named, err := r.store.NamedFiles(ctx, []string{name})
	if err != nil {
		return fmt.Errorf("look up %s: %w", name, err)
	}
	if !named[name] {
		return domain.NewError(domain.ErrConflict, "not_named", "no stored report names "+name+": restore the report's row first (it would be an orphan again)")
	}
	if err := r.uploads.Unquarantine(ctx, name); err != nil {
		return fmt.Errorf("move %s back from quarantine: %w", name, err)
	}
	return nil
}
