package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Result formats the commands share.
const (
	formatJSON  = "json"
	formatYAML  = "yaml"
	formatText  = "text"
	formatTable = "table"
)

// outputFlags are how every command that prints a result is told its
// format and where it goes: -o/--output FORMAT and --output-file FILE.
// Progress goes to stderr; only the result goes here.
type outputFlags struct {
	format  string
	file    string
	formats []string
}

// bindOutput adds -o/--output (formats[0] is the default) and
// --output-file to cmd, and refuses an unknown format before the command
// does anything (nothing is created for a typo).
func bindOutput(cmd *cobra.Command, formats ...string) *outputFlags {
	o := &outputFlags{formats: formats}
	fl := cmd.Flags()
	fl.StringVarP(&o.format, "output", "o", formats[0], "result format: "+strings.Join(formats, ", "))
	fl.StringVar(&o.file, "output-file", "", "write the result to this file instead of stdout")
	next := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := o.check(); err != nil {
			return err
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
	return o
}

func (o *outputFlags) check() error {
	if !slices.Contains(o.formats, o.format) {
		return fmt.Errorf("--output %q: use %s", o.format, strings.Join(o.formats, ", "))
	}
	return nil
}

// writeBytes writes a rendered result to stdout or --output-file.
func (o *outputFlags) writeBytes(cmd *cobra.Command, b []byte) error {
	if o.file == "" {
		_, err := cmd.OutOrStdout().Write(b)
		return err
	}
	if err := os.WriteFile(o.file, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", o.file, err)
	}
	return nil
}

// writeTo runs write on stdout or on --output-file, for commands that
// render their result themselves (diagnose, bench).
func (o *outputFlags) writeTo(cmd *cobra.Command, write func(io.Writer) error) error {
	var b bytes.Buffer
	w := cmd.OutOrStdout()
	if o.file != "" {
		w = &b
	}
	if err := write(w); err != nil {
		return err
	}
	if o.file == "" {
		return nil
	}
	return o.writeBytes(cmd, b.Bytes())
}

// texter is a result with its own text form.
type texter interface{ Text() []byte }

// writeResult renders v in the chosen format and writes it: JSON and YAML
// by its JSON field names, text by v's own Text or as one "field  value"
// line per field that is set.
func (o *outputFlags) writeResult(cmd *cobra.Command, v any) error {
	b, err := renderResult(v, o.format)
	if err != nil {
		return err
	}
	return o.writeBytes(cmd, b)
}

func renderResult(v any, format string) ([]byte, error) {
	switch format {
	case formatJSON:
		b, err := json.MarshalIndent(v, "", "  ")
		return append(b, '\n'), err
	case formatYAML:
		return yaml.Marshal(v)
	case formatText, formatTable:
		if t, ok := v.(texter); ok {
			return t.Text(), nil
		}
		return fieldLines(v)
	}
	return nil, fmt.Errorf("--output %q: not a result format", format)
}

// fieldLines is a struct's set fields, one per line, named as in its JSON.
func fieldLines(v any) ([]byte, error) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("no text form for %T", v)
	}
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i := range rv.NumField() {
		f := rv.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || rv.Field(i).IsZero() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fmt.Fprintf(w, "%s\t%v\n", name, rv.Field(i).Interface())
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
