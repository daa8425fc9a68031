package domain

import (
	"strings"

	"github.com/lender/disbursementd/domain/filecheck"
)

// The members of a FileDto, as the specification writes them (a report
// may write them in any case).
const (
	FileDtoBase64      = "Base64String"
	FileDtoName        = "FileName"
	FileDtoContentType = "ContentType"
	FileDtoExtension   = "Extension"
)

// FileDtoMembers lists them.
var FileDtoMembers = []string{FileDtoBase64, FileDtoName, FileDtoContentType, FileDtoExtension}

// parseFile reads a FileDto object: Base64String (required), and the
// optional FileName, ContentType and Extension, which must agree with the
// content. Member names are case-insensitive; other members are ignored.
// The check of its content ends when stop is closed (nil: never).
func parseFile(raw RawValue, rules FileRules, stop <-chan struct{}) (*File, *fieldErr) {
	if raw.Kind != RawObject {
		return nil, bad(CodeInvalidType, "se esperaba un objeto FileDto con Base64String, llegó "+raw.Kind.String())
	}
	var b64, name, ctype, ext string
	seen := map[string]bool{}
	for _, m := range raw.Members {
		k := strings.ToLower(m.Key)
		var dst *string
		switch k {
		case strings.ToLower(FileDtoBase64):
			dst = &b64
		case strings.ToLower(FileDtoName):
			dst = &name
		case strings.ToLower(FileDtoContentType):
			dst = &ctype
		case strings.ToLower(FileDtoExtension):
			dst = &ext
		default:
			continue
		}
		if seen[k] {
			return nil, bad(CodeDuplicateField, "el miembro "+Clip(m.Key)+" está repetido")
		}
		seen[k] = true
		switch m.Value.Kind {
		case RawNull:
		case RawString:
			*dst = m.Value.Text
		default:
			return nil, bad(CodeInvalidType, "el miembro "+Clip(m.Key)+" debe ser texto")
		}
	}
	if strings.TrimSpace(b64) == "" {
		return nil, bad(CodeInvalidFile, "falta Base64String o está vacío")
	}
	file, fe := inspectFile(b64, rules, stop)
	if fe != nil {
		return nil, fe
	}
	if c, _ := filecheck.Canonical(ext); ext != "" && c != file.Ext {
		return nil, bad(CodeFileMismatch, "Extension declarada ("+Clip(ext)+") no corresponde al contenido ("+file.Ext+")")
	}
	if name != "" {
		i := strings.LastIndexByte(name, '.')
		if c, _ := filecheck.Canonical(name[i+1:]); i < 0 || c != file.Ext {
			return nil, bad(CodeFileMismatch, "FileName declarado no corresponde al contenido ("+file.Ext+")")
		}
	}
	if ctype != "" {
		mt, _, _ := strings.Cut(ctype, ";")
		if !strings.EqualFold(strings.TrimSpace(mt), file.ContentType) {
			return nil, bad(CodeFileMismatch, "ContentType declarado no corresponde al contenido ("+file.ContentType+")")
		}
	}
	return file, nil
}
