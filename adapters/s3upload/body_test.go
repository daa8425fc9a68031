package s3upload

import (
	"bytes"
	"io"
	"testing"

	"github.com/lender/disbursementd/test/fixture"
)

func TestBodySeeksByDecodingAgain(t *testing.T) {
	data := fixture.PDF(100 << 10)
	b := newBody(fixture.File(data))
	readAll := func() []byte {
		t.Helper()
		got, err := io.ReadAll(b)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := readAll(); !bytes.Equal(got, data) {
		t.Fatalf("first read: %d bytes", len(got))
	}
	// The SDK's length probe: to the end and back.
	if end, err := b.Seek(0, io.SeekEnd); err != nil || end != int64(len(data)) {
		t.Fatalf("Seek(0, End) = %d, %v", end, err)
	}
	if pos, err := b.Seek(0, io.SeekStart); err != nil || pos != 0 {
		t.Fatalf("Seek(0, Start) = %d, %v", pos, err)
	}
	if got := readAll(); !bytes.Equal(got, data) {
		t.Fatal("read after rewinding differs")
	}
	for _, c := range []struct {
		off    int64
		whence int
		want   []byte
	}{
		{10, io.SeekStart, data[10:]},
		{-5, io.SeekEnd, data[len(data)-5:]},
		{int64(len(data)) + 7, io.SeekStart, nil},
	} {
		if _, err := b.Seek(c.off, c.whence); err != nil {
			t.Fatal(err)
		}
		if got := readAll(); !bytes.Equal(got, c.want) {
			t.Fatalf("after Seek(%d, %d): %d bytes, want %d", c.off, c.whence, len(got), len(c.want))
		}
	}
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Seek(3, io.SeekCurrent); err != nil {
		t.Fatal(err)
	}
	if got := readAll(); !bytes.Equal(got, data[3:]) {
		t.Fatal("Seek(3, Current) from the start")
	}
	if _, err := b.Seek(-1, io.SeekStart); err == nil {
		t.Fatal("seek before the start accepted")
	}
}
