package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// decodeObject decodes a JSON object into the struct dst key by key,
// descending into nested structs, so that an error names the full key
// (`approval.threshold`) and unknown keys come back as warnings rather
// than vanishing. A whole-number field tagged `range:"LO,HI"` must hold a
// value from LO to HI; every numeric setting carries such a tag.
func decodeObject(data []byte, dst any, prefix string) (warns []string, err error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		if prefix == "" {
			return nil, errors.New("the file must hold a JSON object")
		}
		return nil, fmt.Errorf("%s: expected an object", prefix)
	}
	v := reflect.ValueOf(dst).Elem()
	fields := map[string]int{}
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = i
		}
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		i, ok := fields[k]
		if !ok {
			warns = append(warns, fmt.Sprintf("unknown key %q ignored", path))
			continue
		}
		f := v.Field(i)
		if f.Kind() == reflect.Struct && !bytes.Equal(bytes.TrimSpace(raw[k]), []byte("null")) {
			w, err := decodeObject(raw[k], f.Addr().Interface(), path)
			warns = append(warns, w...)
			if err != nil {
				return warns, err
			}
			continue
		}
		if err := json.Unmarshal(raw[k], f.Addr().Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				where := path
				if te.Field != "" {
					where = path + "." + te.Field
				}
				return warns, fmt.Errorf("%s: expected %s, got %s", where, jsonType(te.Type), te.Value)
			}
			return warns, fmt.Errorf("%s: %v", path, err)
		}
		if err := checkRange(v.Type().Field(i), f, path); err != nil {
			return warns, err
		}
	}
	return warns, nil
}

// checkRange holds a whole-number field to the bounds of its range tag.
func checkRange(sf reflect.StructField, f reflect.Value, path string) error {
	tag, ok := sf.Tag.Lookup("range")
	if !ok {
		return nil
	}
	lo, hi, err := parseRange(tag)
	if err != nil {
		// A programming error in a tag, caught by the package's tests.
		return fmt.Errorf("%s: %v", path, err)
	}
	if n := f.Int(); n < lo || n > hi {
		return fmt.Errorf("%s: must be between %d and %d, not %d", path, lo, hi, n)
	}
	return nil
}

func parseRange(tag string) (lo, hi int64, err error) {
	a, b, ok := strings.Cut(tag, ",")
	if ok {
		lo, err = strconv.ParseInt(a, 10, 64)
	}
	if ok && err == nil {
		hi, err = strconv.ParseInt(b, 10, 64)
	}
	if !ok || err != nil || lo > hi {
		return 0, 0, fmt.Errorf("bad range tag %q", tag)
	}
	return lo, hi, nil
}

// jsonType names a Go type the way a JSON user thinks of it.
func jsonType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64:
		return "a whole number"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonType(t.Elem())
	}
	return t.String()
}
