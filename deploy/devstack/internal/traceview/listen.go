package traceview

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// ErrNotLoopback is returned for an address other than a loopback one: the viewer has no
// authentication and its traces carry user and transfer ids, so it is for this machine only
// unless the caller explicitly allows more.
var ErrNotLoopback = errors.New("traceview: not a loopback address")

// CheckAddr accepts host:port whose host is a loopback IP (127.0.0.0/8, ::1) or "localhost";
// an empty host (every interface) or any other is ErrNotLoopback unless allowRemote.
func CheckAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("traceview: address %q: %w", addr, err)
	}
	if allowRemote || isLoopbackHost(host) {
		return nil
	}
	if host == "" {
		return fmt.Errorf("%w: %q listens on every interface; use 127.0.0.1%s", ErrNotLoopback, addr, addr)
	}
	return fmt.Errorf("%w: %q", ErrNotLoopback, addr)
}

// Listen listens on addr after CheckAddr.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	if err := CheckAddr(addr, allowRemote); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("traceview: %w", err)
	}
	return l, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackHostOnly refuses requests whose Host header is not a loopback name or address: a page
// on another site cannot read the viewer by pointing a name it controls at 127.0.0.1 (DNS
// rebinding), because the browser then sends that name as the Host.
func loopbackHostOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if !isLoopbackHost(host) {
			http.Error(w, "the trace viewer answers only to 127.0.0.1, [::1] or localhost", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
