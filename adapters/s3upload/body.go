package s3upload

import (
	"context"
	"errors"
	"io"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"

	"github.com/lender/disbursementd/domain"
)

// body is a file's content as the PUT's body: decoded as it is read,
// never held whole. It can seek, so the SDK can rewind it for a retry:
// a seek only records the position, and the next Read decodes again from
// the start (or reads on) to get there, so the SDK's length probes
// (seek to the end and back) cost nothing.
type body struct {
	f      *domain.File
	r      io.Reader
	pos    int64 // where r is
	target int64 // where the next Read starts
}

func newBody(f *domain.File) *body { return &body{f: f, r: f.Reader()} }

func (b *body) Read(p []byte) (int, error) {
	if b.target != b.pos {
		if err := b.reach(); err != nil {
			return 0, err
		}
	}
	if b.pos >= b.f.Size {
		return 0, io.EOF
	}
	if rest := b.f.Size - b.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := b.r.Read(p)
	b.pos += int64(n)
	b.target = b.pos
	return n, err
}

// reach moves r to target: back to the start when it lies behind.
func (b *body) reach() error {
	if b.target < b.pos {
		b.r, b.pos = b.f.Reader(), 0
	}
	if b.target > b.f.Size {
		b.target = b.f.Size
	}
	n, err := io.CopyN(io.Discard, b.r, b.target-b.pos)
	b.pos += n
	return err
}

func (b *body) Seek(offset int64, whence int) (int64, error) {
	var t int64
	switch whence {
	case io.SeekStart:
		t = offset
	case io.SeekCurrent:
		t = b.target + offset
	case io.SeekEnd:
		t = b.f.Size + offset
	default:
		return 0, errors.New("s3upload: bad whence")
	}
	if t < 0 {
		return 0, errors.New("s3upload: seek before the start")
	}
	b.target = t
	return t, nil
}

// withPayloadHash signs the PUT with the content's known SHA-256 (hex) as
// its payload hash, so the SDK does not read the body to compute one (it
// would over plain HTTP), and the server checks the body against it as
// well as against x-amz-checksum-sha256.
func withPayloadHash(hexSum string) func(*s3.Options) {
	return func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("disbursementd:KnownPayloadHash",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					return next.HandleFinalize(v4.SetPayloadHash(ctx, hexSum), in)
				}), middleware.Before)
		})
	}
}
