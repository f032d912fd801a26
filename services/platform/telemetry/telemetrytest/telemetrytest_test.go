package telemetrytest

import "testing"

func TestParse(t *testing.T) {
	t.Parallel()
	e, err := Parse(`# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 12
rpc_server_call_duration_seconds_count{rpc_method="a.B/C",rpc_response_status_code="OK"} 3 1700000000000
odd{path="C:\\x",q="say \"hi\"",nl="a\nb",} 1e-3
`)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := e.Find("go_goroutines", nil); !ok || v != 12 {
		t.Errorf("go_goroutines = %v, %v", v, ok)
	}
	if v, ok := e.Find("rpc_server_call_duration_seconds_count", map[string]string{"rpc_method": "a.B/C"}); !ok || v != 3 {
		t.Errorf("count = %v, %v", v, ok)
	}
	if _, ok := e.Find("rpc_server_call_duration_seconds_count", map[string]string{"rpc_method": "a.B/D"}); ok {
		t.Errorf("found a sample with another label value")
	}
	if v, ok := e.Find("odd", map[string]string{"path": `C:\x`, "q": `say "hi"`, "nl": "a\nb"}); !ok || v != 0.001 {
		t.Errorf("escaped labels: %v, %v; samples %+v", v, ok, e.Samples)
	}
	for _, bad := range []string{"novalue", `x{a="b} 1`, `x{a} 1`, "x one"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
}
