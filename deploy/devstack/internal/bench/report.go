package bench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Result values of a figure.
const (
	Pass  = "PASS"
	Miss  = "MISS"
	Info  = "info"
	Error = "ERROR"
)

// Figure is one row of the report.
type Figure struct {
	Name     string   `json:"name"`
	Measured *float64 `json:"measured,omitempty"`
	Baseline *float64 `json:"baseline,omitempty"`
	Ratio    *float64 `json:"ratio,omitempty"`
	Unit     string   `json:"unit"`
	// Level is the load level the row was measured at, when the figure is measured at several:
	// concurrent senders (2.) or open streams (4.).
	Level int `json:"level,omitempty"`
	// Target is written for people, e.g. "≥ 0.40 × baseline".
	Target string `json:"target,omitempty"`
	Result string `json:"result"`
	// Text overrides how Measured is shown (e.g. idle and after-load memory together).
	Text   string `json:"text,omitempty"`
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
}

// F makes a float pointer for a figure's fields.
func F(v float64) *float64 { return &v }

// Check fills Result from the value against a bound: at least (atLeast) or at most.
func (f *Figure) Check(value, bound float64, atLeast bool) {
	ok := value <= bound
	if atLeast {
		ok = value >= bound
	}
	f.Result = Miss
	if ok {
		f.Result = Pass
	}
}

func num(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	x := *v
	var s string
	switch {
	case x >= 100:
		s = fmt.Sprintf("%.0f", x)
	case x >= 10:
		s = fmt.Sprintf("%.1f", x)
	default:
		s = fmt.Sprintf("%.2f", x)
	}
	if unit != "" {
		s += " " + unit
	}
	return s
}

// PrintTable writes the figures as an aligned table.
func PrintTable(w io.Writer, figures []Figure) {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tmeasured\tbaseline\tratio\ttarget\tresult")
	fmt.Fprintln(tw, "------\t--------\t--------\t-----\t------\t------")
	for _, f := range figures {
		measured := num(f.Measured, f.Unit)
		if f.Text != "" {
			measured = f.Text
		}
		if f.Result == Error {
			measured = "could not measure"
		}
		ratio := "—"
		if f.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *f.Ratio)
		}
		target := f.Target
		if target == "" {
			target = "—"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, measured, num(f.Baseline, f.Unit), ratio, target, f.Result)
	}
	_ = tw.Flush()
	for _, f := range figures {
		if f.Error != "" {
			fmt.Fprintf(w, "  %s: %s\n", f.Name, strings.ReplaceAll(f.Error, "\n", "\n    "))
		}
	}
}
