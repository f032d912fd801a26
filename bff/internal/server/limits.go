package server

import (
	"compress/gzip"
	"errors"
	"io"
	"net/http"

	"connectrpc.com/connect"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// maxRequestBytes is the largest request the API reads: a browser's request is small, anything
// bigger is a mistake or an attack. The analytics service has a smaller limit of its own
// (handlers.MaxTrackRequestBytes).
const maxRequestBytes = 1 << 20

// The read limits answer a request over them in one plain sentence (rpcerr.TooLarge:
// InvalidArgument, "The request is too large."), in every protocol, instead of connect's
// ResourceExhausted "message size 10000033 is larger than configured max 1048576", which tells
// a client to retry and gives the limit away. connect writes its own refusal before any
// interceptor runs, so the limits are not connect.WithReadMaxBytes but the standard library's
// http.MaxBytesReader, whose error tooLarge turns into the BFF's *connect.Error, which connect
// passes on as it is: limitBody bounds the bytes on the wire (the Connect body, or the gRPC and
// gRPC-Web envelopes whatever size their prefix claims), and limitedGzip the bytes a compressed
// message inflates to.

// limitBody refuses a request body longer than maxBytes.
func limitBody(maxBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = tooLarge{http.MaxBytesReader(w, r.Body, maxBytes)}
		}
		next.ServeHTTP(w, r)
	})
}

// readLimit is the handler options that bound a compressed message to maxBytes once
// inflated: the only compression the API accepts is gzip, registered here.
func readLimit(maxBytes int64) []connect.HandlerOption {
	return []connect.HandlerOption{
		connect.WithCompression("gzip",
			func() connect.Decompressor { return &limitedGzip{max: maxBytes} },
			func() connect.Compressor {
				w, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed) // the level is valid
				return w
			}),
	}
}

// tooLarge reads through a MaxBytesReader and answers its "too large" with rpcerr.TooLarge.
type tooLarge struct{ io.ReadCloser }

func (r tooLarge) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if _, over := errors.AsType[*http.MaxBytesError](err); over {
		err = rpcerr.TooLarge()
	}
	return n, err
}

// limitedGzip is a gzip reader that fails with rpcerr.TooLarge past max inflated bytes.
type limitedGzip struct {
	gzip.Reader
	max     int64
	limited io.Reader
}

func (z *limitedGzip) Reset(r io.Reader) error {
	// No ResponseWriter: the limit is on what the message inflates to, not on the connection.
	z.limited = tooLarge{http.MaxBytesReader(nil, io.NopCloser(&z.Reader), z.max)}
	return z.Reader.Reset(r)
}

func (z *limitedGzip) Read(p []byte) (int, error) {
	return z.limited.Read(p)
}
