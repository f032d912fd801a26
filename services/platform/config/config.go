// Package config fills a service's configuration struct from environment variables.
//
// Every Thumela service keeps its settings in one struct, read once at start, validated, and
// logged once with secrets masked. The struct's fields carry tags:
//
//	type Config struct {
//		GRPCAddr    string        `env:"GRPC_ADDR" default:":9090"`
//		DatabaseURL string        `env:"DATABASE_URL,noprefix" required:"true" secret:"true"`
//		CodeTTL     time.Duration `env:"CODE_TTL" default:"10m"`
//		Origins     []string      `env:"ALLOWED_ORIGINS"`
//	}
//
// With prefix "IDENTITY", GRPCAddr reads IDENTITY_GRPC_ADDR; DatabaseURL reads DATABASE_URL as
// is, because ",noprefix" marks variables shared by every process (DATABASE_URL, NATS_URL,
// OTEL_*). A variable that is set but empty counts as unset, so that `FOO= ./svc` falls back to
// the default instead of silently configuring an empty value.
//
// Supported field types: string, int, int64, bool, time.Duration and []string (comma
// separated, blanks dropped). Structs without an env tag are walked, so settings can be grouped.
package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Sentinel errors, so callers and tests can tell why a variable was refused with errors.Is.
var (
	// ErrMissing: a required variable is unset and has no default.
	ErrMissing = errors.New("is required")
	// ErrInvalid: a variable's value cannot be parsed into its field's type.
	ErrInvalid = errors.New("is invalid")
	// ErrTarget: Load was not given a non-nil pointer to a struct, or the struct has a field of
	// a type this package does not support. It is a programming error, not an operator's.
	ErrTarget = errors.New("config: invalid target")
)

// VarError is one refused variable.
type VarError struct {
	Var string // the full variable name, e.g. IDENTITY_GRPC_ADDR
	Err error  // ErrMissing, or ErrInvalid wrapping the parse error
}

func (e *VarError) Error() string { return e.Var + " " + e.Err.Error() }

func (e *VarError) Unwrap() error { return e.Err }

// Error lists every refused variable, so an operator fixes the environment in one go rather
// than one restart per variable.
type Error struct {
	Vars []*VarError
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Vars))
	for i, v := range e.Vars {
		parts[i] = v.Error()
	}
	return "config: " + strings.Join(parts, "; ")
}

// Unwrap exposes each VarError to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	errs := make([]error, len(e.Vars))
	for i, v := range e.Vars {
		errs[i] = v
	}
	return errs
}

// LookupFunc reads one variable; os.LookupEnv is the real one. Tests pass a map's lookup so they
// can run in parallel (t.Setenv cannot).
type LookupFunc func(name string) (string, bool)

// MapLookup returns a LookupFunc reading from m, for tests.
func MapLookup(m map[string]string) LookupFunc {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// Load fills dst, a pointer to a struct, from the process environment. See the package doc
// for the tags. The error is an *Error naming every missing or invalid variable.
func Load(prefix string, dst any) error {
	return LoadWith(os.LookupEnv, prefix, dst)
}

// LoadWith is Load reading variables through lookup.
func LoadWith(lookup LookupFunc, prefix string, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: want a non-nil pointer to a struct, got %T", ErrTarget, dst)
	}
	fields, err := fieldsOf(rv.Elem())
	if err != nil {
		return err
	}
	var errs []*VarError
	for _, f := range fields {
		name := f.tag.varName(prefix)
		raw, ok := lookup(name)
		if !ok || raw == "" {
			if !f.tag.hasDefault {
				if f.tag.required {
					errs = append(errs, &VarError{Var: name, Err: ErrMissing})
				}
				continue
			}
			raw = f.tag.def
		}
		if err := setValue(f.value, raw); err != nil {
			// The value itself is not echoed: it may be a secret.
			errs = append(errs, &VarError{Var: name, Err: fmt.Errorf("%w: %w", ErrInvalid, err)})
		}
	}
	if len(errs) > 0 {
		return &Error{Vars: errs}
	}
	return nil
}

// tag is a field's parsed struct tags.
type tag struct {
	name       string
	noPrefix   bool
	def        string
	hasDefault bool
	required   bool
	secret     bool
}

func (t tag) varName(prefix string) string {
	if t.noPrefix || prefix == "" {
		return t.name
	}
	return strings.TrimSuffix(prefix, "_") + "_" + t.name
}

type field struct {
	value reflect.Value
	tag   tag
}

var durationType = reflect.TypeFor[time.Duration]()

// fieldsOf lists the env-tagged fields of struct v, walking untagged struct fields.
func fieldsOf(v reflect.Value) ([]field, error) {
	var out []field
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		envTag, ok := sf.Tag.Lookup("env")
		if !ok {
			if sf.Type.Kind() == reflect.Struct {
				nested, err := fieldsOf(v.Field(i))
				if err != nil {
					return nil, err
				}
				out = append(out, nested...)
			}
			continue
		}
		tg, err := parseTag(sf, envTag)
		if err != nil {
			return nil, err
		}
		if !supported(sf.Type) {
			return nil, fmt.Errorf("%w: field %s has unsupported type %s", ErrTarget, sf.Name, sf.Type)
		}
		out = append(out, field{value: v.Field(i), tag: tg})
	}
	return out, nil
}

func parseTag(sf reflect.StructField, envTag string) (tag, error) {
	name, opts, _ := strings.Cut(envTag, ",")
	if name == "" {
		return tag{}, fmt.Errorf("%w: field %s has an empty env tag", ErrTarget, sf.Name)
	}
	tg := tag{name: name}
	switch opts {
	case "":
	case "noprefix":
		tg.noPrefix = true
	default:
		return tag{}, fmt.Errorf("%w: field %s: unknown env option %q", ErrTarget, sf.Name, opts)
	}
	tg.def, tg.hasDefault = sf.Tag.Lookup("default")
	tg.required = sf.Tag.Get("required") == "true"
	tg.secret = sf.Tag.Get("secret") == "true"
	return tg, nil
}

func supported(t reflect.Type) bool {
	if t == durationType {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Int, reflect.Int64, reflect.Bool:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.String
	default:
		return false
	}
}

func setValue(v reflect.Value, raw string) error {
	if v.Type() == durationType {
		d, err := time.ParseDuration(raw)
		if err != nil {
			return fmt.Errorf("want a duration such as 30s or 5m: %w", unquote(err))
		}
		v.SetInt(int64(d))
		return nil
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(raw)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("want an integer: %w", unquote(err))
		}
		v.SetInt(n)
	case reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return fmt.Errorf("want true or false: %w", unquote(err))
		}
		v.SetBool(b)
	case reflect.Slice:
		var items []string
		for item := range strings.SplitSeq(raw, ",") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
		v.Set(reflect.ValueOf(items).Convert(v.Type()))
	}
	return nil
}

// unquote drops the offending input from strconv/time errors so a secret placed in the wrong
// variable never reaches a log line through the error text.
func unquote(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	if strings.HasPrefix(err.Error(), "time: ") {
		msg, _, _ := strings.Cut(err.Error(), " \"")
		return errors.New(msg)
	}
	return err
}
