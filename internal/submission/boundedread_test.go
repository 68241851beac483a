package submission

import (
	"bytes"
	"errors"
	"io"
	"net/smtp"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadBoundedReadsWholeOrRefusesPastTheLimit(t *testing.T) {
	for _, size := range []int{0, 1, firstChunk - 1, firstChunk, firstChunk + 1, 3*maxChunk + 7} {
		in := bytes.Repeat([]byte("abcdefg\r\n"), size/9+1)[:size]
		got, err := readBounded(iotest.HalfReader(bytes.NewReader(in)), int64(size))
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("size %d: %d bytes back, err %v", size, len(got), err)
		}
		if size == 0 {
			continue
		}
		if got, err = readBounded(bytes.NewReader(in), int64(size-1)); !errors.Is(err, errOverLimit) {
			t.Fatalf("size %d over a limit of %d: %d bytes back, err %v", size, size-1, len(got), err)
		}
	}
	boom := errors.New("connection reset")
	if _, err := readBounded(io.MultiReader(bytes.NewReader([]byte("partial")), iotest.ErrReader(boom)), 100); !errors.Is(err, boom) {
		t.Fatalf("a failing reader: %v", err)
	}
}

// D74: a message over the cap is refused with 552 5.3.4, and the server
// allocates about the cap on the way, not the message: the message is three
// times the cap and undeclared (no SIZE). io.ReadAll, which Data used
// before, allocated twice the cap (16 MB here) and fails the bound of one
// and a half; readBounded allocates the cap's worth of chunks (8 MB).
func TestDataOverTheCapAllocatesAboutTheCap(t *testing.T) {
	const limit = 8 << 20
	s, sender := startTestServer(t, limit)
	c, err := smtp.Dial(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := authedData(t, c)
	line := []byte(strings.Repeat("QUJD", 19) + "\r\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := w.Write([]byte("From: a@shop.example\r\nTo: b@customer.example\r\nSubject: big\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 3*limit; n += len(line) {
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	err = w.Close()
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), "552") || !strings.Contains(err.Error(), "5.3.4") {
		t.Fatalf("over the cap: %v, want 552 5.3.4", err)
	}
	if sender.sent != 0 {
		t.Fatal("a message over the cap reached the app")
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 3*limit/2 {
		t.Fatalf("%d MB allocated to refuse a %d MB message over a %d MB cap; want under %d MB",
			allocated>>20, 3*limit>>20, limit>>20, 3*limit/2>>20)
	} else {
		t.Logf("%d MB allocated to refuse a %d MB message over a %d MB cap", allocated>>20, 3*limit>>20, limit>>20)
	}
}
