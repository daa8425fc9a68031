package gormstore

import (
	"fmt"

	"github.com/lender/disbursementd/domain"
)

// column is one staging column derived from a catalogue field.
type column struct {
	name  string
	field domain.Field
	index int // the field's index in the catalogue (domain.Report.At)
}

func columnsFor(cat *domain.Catalogue) []column {
	var out []column
	for i, f := range cat.Fields {
		if f.Type == domain.TypeFile {
			continue // the file's metadata has its own columns
		}
		out = append(out, column{name: f.Internal, field: f, index: i})
	}
	return out
}

// columnType sizes a staging column from fields.csv. On MySQL the code-like
// columns are ASCII, so 92 columns stay well inside InnoDB's row-size
// limit (utf8mb4 counts 4 bytes a character); long texts are TEXT.
func columnType(driver string, f domain.Field) string {
	if driver == SQLite {
		switch f.Type {
		case domain.TypeInteger, domain.TypeBoolean:
			return "INTEGER"
		default:
			// Money, rates and dates are TEXT so that SQLite keeps them
			// exactly as written ("14334900.00", "2026-11-26").
			return "TEXT"
		}
	}
	const ascii = " CHARACTER SET ascii COLLATE ascii_bin"
	switch f.Type {
	case domain.TypeString, domain.TypeEmail:
		if f.Max > 255 {
			return "TEXT"
		}
		return fmt.Sprintf("VARCHAR(%d)", f.Max)
	case domain.TypeEnum:
		n := 1
		for _, v := range f.Enum {
			n = max(n, len(v))
		}
		return fmt.Sprintf("VARCHAR(%d)%s", n, ascii)
	case domain.TypeNIT:
		return "VARCHAR(12)" + ascii
	case domain.TypeIdentification:
		return "VARCHAR(20)" + ascii
	case domain.TypeDANE:
		return "CHAR(5)" + ascii
	case domain.TypePhone:
		return fmt.Sprintf("VARCHAR(%d)%s", f.RangeMax, ascii)
	case domain.TypeCreditNumber:
		return "VARCHAR(30)" + ascii
	case domain.TypeMoney:
		return "DECIMAL(18,2)"
	case domain.TypeRate:
		return "DECIMAL(9,4)"
	case domain.TypeInteger:
		return "INT"
	case domain.TypeBoolean:
		return "TINYINT(1)"
	case domain.TypeDate:
		return "DATE"
	}
	panic("gormstore: no column type for " + string(f.Type))
}

// columnDDL is the definition a migration gives the column of field f:
// what a new migration writes (ALTER TABLE … ADD COLUMN) when a line is
// added to fields.csv. TestMigrationsMatchCatalogue compares every
// migrated column with it.
func columnDDL(driver string, c column) string {
	return c.name + " " + columnType(driver, c.field) + " NULL"
}
