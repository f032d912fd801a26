package server

import (
	"compress/gzip"
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
// interceptor runs, so the limits are not connect.WithReadMaxBytes but readers that fail with
// the BFF's *connect.Error, which connect passes on as it is: limitBody bounds the bytes on
// the wire (the Connect body, or the gRPC and gRPC-Web envelopes whatever size their prefix
// claims), and limitedGzip the bytes a compressed message inflates to.

// limitBody refuses a request body longer than maxBytes.
func limitBody(maxBytes int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &limitedReader{ReadCloser: r.Body, left: maxBytes}
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

// limitedReader is http.MaxBytesReader failing with rpcerr.TooLarge.
type limitedReader struct {
	io.ReadCloser
	left int64
	err  error
}

func (r *limitedReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	// One byte more than is left tells a body at the limit from one over it.
	if int64(len(p))-1 > r.left {
		p = p[:r.left+1]
	}
	n, err := r.ReadCloser.Read(p)
	if int64(n) <= r.left {
		r.left -= int64(n)
		return n, err
	}
	n, r.left, r.err = int(r.left), 0, rpcerr.TooLarge()
	return n, r.err
}

// limitedGzip is a gzip reader that fails with rpcerr.TooLarge past max inflated bytes.
type limitedGzip struct {
	gzip.Reader
	max  int64
	left limitedReader
}

func (z *limitedGzip) Reset(r io.Reader) error {
	z.left = limitedReader{ReadCloser: io.NopCloser(&z.Reader), left: z.max}
	return z.Reader.Reset(r)
}

func (z *limitedGzip) Read(p []byte) (int, error) {
	return z.left.Read(p)
}
