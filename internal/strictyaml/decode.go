// Package strictyaml decodes the YAML files users write (scenarios,
// topologies) so that a mistake reads as a one-line fix: an unknown key
// lists the valid ones, an empty file says so instead of "EOF".
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrEmpty is returned for a document without content (nothing, or only comments).
var ErrEmpty = errors.New("the file is empty")

// Decode decodes data into v (a pointer to a struct), rejecting unknown
// keys. Fields already set in v are kept unless the document sets them, so
// v may carry defaults.
func Decode(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) {
		return ErrEmpty
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := explain(te.Errors[0], keysByType(reflect.TypeOf(v)))
		if n := len(te.Errors) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more problem(s))", n)
		}
		return errors.New(msg)
	}
	return err
}

var unknownField = regexp.MustCompile(`^(line \d+: )?field (\S+) not found in type (\S+)$`)

// explain rewrites yaml's "field x not found in type pkg.T" as the fix.
func explain(msg string, keys map[string][]string) string {
	m := unknownField.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	valid, ok := keys[m[3]]
	if !ok {
		return fmt.Sprintf("%sunknown key %q", m[1], m[2])
	}
	return fmt.Sprintf("%sunknown key %q; valid keys here: %s", m[1], m[2], strings.Join(valid, ", "))
}

// keysByType maps every struct type reachable from t (as yaml names it in
// errors) to its YAML keys.
func keysByType(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t == reflect.TypeOf(yaml.Node{}) {
			return
		}
		if _, seen := out[t.String()]; seen {
			return
		}
		out[t.String()] = nil
		var keys []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" {
				continue
			}
			if strings.Contains(opts, "inline") {
				walk(f.Type)
				keys = append(keys, out[f.Type.String()]...)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			keys = append(keys, name)
			walk(f.Type)
		}
		sort.Strings(keys)
		out[t.String()] = keys
	}
	walk(t)
	return out
}

// TopLevelKeys lists a mapping document's top-level keys (nil if it is not one).
func TopLevelKeys(data []byte) []string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	var keys []string
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys
}
