// Package telemetrytest reads what a process's metrics listener serves, for tests that check a
// metric is really exported under its Prometheus name and labels.
package telemetrytest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Sample is one line of the Prometheus text exposition.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Exposition is a scraped /metrics page.
type Exposition struct {
	Text    string
	Samples []Sample
}

// Find returns the value of the first sample named name that carries every label of labels
// (other labels may be present).
func (e Exposition) Find(name string, labels map[string]string) (float64, bool) {
next:
	for _, s := range e.Samples {
		if s.Name != name {
			continue
		}
		for k, v := range labels {
			if s.Labels[k] != v {
				continue next
			}
		}
		return s.Value, true
	}
	return 0, false
}

// Scrape GETs url as Prometheus would and parses the text exposition; it fails the test unless
// the answer is 200 with the text format.
func Scrape(t testing.TB, url string) Exposition {
	t.Helper()
	client := http.Client{Timeout: 10 * time.Second}
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %d %s\n%s", url, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	e, err := Parse(string(body))
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return e
}

// Parse reads a text exposition (format 0.0.4): comments are skipped, each other line is
// name{k="v",…} value [timestamp].
func Parse(text string) (Exposition, error) {
	e := Exposition{Text: text}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSample(line)
		if err != nil {
			return e, fmt.Errorf("cannot read %q: %w", line, err)
		}
		e.Samples = append(e.Samples, s)
	}
	return e, sc.Err()
}

var errSyntax = errors.New("telemetrytest: not a sample line")

func parseSample(line string) (Sample, error) {
	s := Sample{Labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i <= 0 {
		return s, errSyntax
	}
	s.Name, line = line[:i], line[i:]
	if strings.HasPrefix(line, "{") {
		line = line[1:]
		for !strings.HasPrefix(line, "}") {
			key, after, ok := strings.Cut(line, `="`)
			if !ok {
				return s, errSyntax
			}
			var val strings.Builder
			j := 0
			for ; j < len(after) && after[j] != '"'; j++ {
				if after[j] == '\\' && j+1 < len(after) {
					j++
					if after[j] == 'n' {
						val.WriteByte('\n')
					} else {
						val.WriteByte(after[j]) // \\ and \"
					}
					continue
				}
				val.WriteByte(after[j])
			}
			if j == len(after) {
				return s, errSyntax
			}
			s.Labels[key] = val.String()
			line = strings.TrimPrefix(after[j+1:], ",")
		}
		line = line[1:]
	}
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return s, errSyntax
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return s, err
	}
	s.Value = v
	return s, nil
}
