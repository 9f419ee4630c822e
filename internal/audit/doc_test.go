package audit

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// docPath is the user documentation of the log format.
const docPath = "../../docs/audit.md"

// field is one row of a field table: a JSON name and its documented type.
type field struct{ name, typ string }

// TestDocMatchesTypes checks that docs/audit.md documents exactly the
// fields each kind's struct writes, in order and with their JSON types,
// and the fields every line has.
func TestDocMatchesTypes(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	tables := fieldTables(string(data))
	cases := []struct {
		heading string
		typ     reflect.Type
	}{
		{"Every line", reflect.TypeFor[wire]()},
		{"`usage` object", reflect.TypeFor[Usage]()},
		{"`parts` item", reflect.TypeFor[VerdictPart]()},
	}
	for _, d := range registry() {
		cases = append(cases, struct {
			heading string
			typ     reflect.Type
		}{"`" + d.Kind() + "`", reflect.TypeOf(d)})
	}
	for _, c := range cases {
		t.Run(c.heading, func(t *testing.T) {
			doc, ok := tables[c.heading]
			if !ok {
				t.Fatalf("docs/audit.md has no field table under a heading %q", c.heading)
			}
			got := structFields(c.typ)
			if fmt.Sprint(doc) != fmt.Sprint(got) {
				t.Errorf("docs/audit.md documents\n  %v\nbut %s writes\n  %v", doc, c.typ, got)
			}
		})
	}
	// Line, what readers decode, has the same fields as what is written.
	if w, l := jsonNames(reflect.TypeFor[wire]()), jsonNames(reflect.TypeFor[Line]()); !equal(w, l) {
		t.Errorf("Line decodes %v but lines are written with %v", l, w)
	}
}

// fieldTables maps each heading of a markdown document to the first
// table under it whose first column is "field", as (name, type) rows.
func fieldTables(md string) map[string][]field {
	out := map[string][]field{}
	heading := ""
	inTable, header := false, false
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			inTable = false
		case strings.HasPrefix(line, "|"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			switch {
			case !inTable:
				_, done := out[heading]
				inTable, header = !done && len(cells) >= 2 && cells[0] == "field", true
				if inTable {
					out[heading] = []field{}
				}
			case header:
				header = false // the |---| row
			default:
				out[heading] = append(out[heading], field{strings.Trim(cells[0], "`"), cells[1]})
			}
		default:
			inTable = false
		}
	}
	return out
}

// structFields lists a struct's JSON fields and their documented types.
func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		out = append(out, field{name, docType(f.Type)})
	}
	return out
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for _, f := range structFields(t) {
		out = append(out, f.name)
	}
	return out
}

// jsonFields lists the JSON names of a kind's details.
func jsonFields(d Details) []string { return jsonNames(reflect.TypeOf(d)) }

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" || !f.IsExported() {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// docType names a Go type the way the doc's type column does.
func docType(t reflect.Type) string {
	if t == reflect.TypeFor[Details]() {
		return "object"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Struct:
		return "object"
	case reflect.Slice:
		switch docType(t.Elem()) {
		case "string":
			return "array of strings"
		case "object":
			return "array of objects"
		}
	}
	return "unsupported " + t.String()
}

func TestFieldTablesParser(t *testing.T) {
	md := "# A\n\n| field | type | meaning |\n|---|---|---|\n| `x` | string | an x |\n| `y` | integer | |\n\ntext\n\n| flag | effect |\n|---|---|\n| a | b |\n\n## `b.c`\n| field | type | meaning |\n|---|---|---|\n| `z` | boolean | z |\n"
	got := fieldTables(md)
	want := map[string][]field{"A": {{"x", "string"}, {"y", "integer"}}, "`b.c`": {{"z", "boolean"}}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
