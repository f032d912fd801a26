package bench

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// RPCStat is how long one gRPC method took inside its service during a phase, from the one line
// per RPC every service logs ("msg":"rpc" with grpc.method and grpc.duration_ms). It is the
// bench's view inside the stack without a profiler: the server-side time of each hop.
type RPCStat struct {
	Service string  `json:"service"`
	Method  string  `json:"method"`
	Count   int     `json:"count"`
	MeanMs  float64 `json:"mean_ms"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
}

// RPCBreakdown reads the stack's log (lines "<process> | <JSON>") between two offsets and
// summarises every method's server-side durations, the busiest (count × mean) first.
func RPCBreakdown(path string, from, to int64) ([]RPCStat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // the file is only read; its Close error says nothing
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, err
	}
	type key struct{ service, method string }
	durs := map[key][]time.Duration{}
	sc := bufio.NewScanner(io.LimitReader(f, to-from))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"msg":"rpc"`) {
			continue
		}
		_, body, ok := strings.Cut(line, "| ")
		if !ok {
			continue
		}
		var rec struct {
			Service  string  `json:"service"`
			Method   string  `json:"grpc.method"`
			Duration float64 `json:"grpc.duration_ms"`
		}
		if json.Unmarshal([]byte(body), &rec) != nil || rec.Method == "" {
			continue
		}
		k := key{rec.Service, rec.Method[strings.LastIndexByte(rec.Method, '/')+1:]}
		durs[k] = append(durs[k], time.Duration(rec.Duration*float64(time.Millisecond)))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	out := make([]RPCStat, 0, len(durs))
	for k, d := range durs {
		s := Summarize(d, 0, 0, nil)
		var sum time.Duration
		for _, x := range d {
			sum += x
		}
		out = append(out, RPCStat{Service: k.service, Method: k.method, Count: len(d),
			MeanMs: ms(sum) / float64(len(d)), P50ms: s.P50ms, P99ms: s.P99ms})
	}
	slices.SortFunc(out, func(a, b RPCStat) int {
		ta, tb := a.MeanMs*float64(a.Count), b.MeanMs*float64(b.Count)
		switch {
		case ta > tb:
			return -1
		case ta < tb:
			return 1
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out, nil
}
