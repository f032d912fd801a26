package atmnet

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/moov-io/iso8583/network"
)

// MaxFrameSize is the largest payload a 2-byte length prefix can announce.
const MaxFrameSize = 1<<16 - 1

// ErrFrameTooLarge is returned by WriteFrame for a payload over MaxFrameSize.
var ErrFrameTooLarge = errors.New("atmnet: frame too large")

// WriteFrame writes payload behind its 2-byte big-endian length, in one Write, so that writers
// sharing a connection under a mutex never interleave a frame.
func WriteFrame(w io.Writer, payload []byte) error {
	if len(payload) > MaxFrameSize {
		return fmt.Errorf("%w: %d bytes", ErrFrameTooLarge, len(payload))
	}
	header := network.NewBinary2BytesHeader()
	if err := header.SetLength(len(payload)); err != nil {
		return fmt.Errorf("%w: %w", ErrFrameTooLarge, err)
	}
	var buf bytes.Buffer
	buf.Grow(2 + len(payload))
	if _, err := header.WriteTo(&buf); err != nil {
		return err
	}
	buf.Write(payload)
	_, err := w.Write(buf.Bytes())
	return err
}

// ReadFrame reads one length-prefixed payload. A zero-length frame (some switches send them to
// keep a connection alive) is returned as an empty payload. At a clean end of stream before a
// frame starts it returns io.EOF; a stream cut inside a frame is io.ErrUnexpectedEOF.
func ReadFrame(r io.Reader) ([]byte, error) {
	header := network.NewBinary2BytesHeader()
	if _, err := header.ReadFrom(r); err != nil {
		// binary.Read reports io.EOF only when nothing was read.
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	payload := make([]byte, header.Length())
	if _, err := io.ReadFull(r, payload); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return payload, nil
}
