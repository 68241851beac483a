package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// page is one dashboard page as a browser loads it: the page itself (the
// embedded shell every /dashboard/ path answers) and the platform calls
// its script makes (internal/dashboard/assets/js/pages).
type page struct {
	Name  string
	Shell string
	Calls func(w *world, r *rand.Rand) []call
}

// call is one platform JSON request; Label groups its timings.
type call struct{ Label, Path string }

// world is what the pages need to know about the seeded organization.
type world struct {
	EmailIDs   []string // opened by the email page, at random
	NextCursor string   // the emails log's second page
	Recipient  string   // a recipient that exists, for the filter
}

var pages = []page{
	{"overview", "/dashboard/", func(*world, *rand.Rand) []call {
		end := time.Now().UTC()
		start := end.AddDate(0, 0, -29).Truncate(24 * time.Hour)
		return []call{{"GET /me", "/me"},
			{"GET /stats (30 days, daily)", "/stats?granularity=day&startDate=" + start.Format(time.RFC3339) + "&endDate=" + end.Format(time.RFC3339)},
			{"GET /domains", "/domains"}, {"GET /suppressions?status=active&limit=100", "/suppressions?status=active&limit=100"}}
	}},
	{"emails", "/dashboard/emails", func(*world, *rand.Rand) []call {
		return []call{{"GET /emails?limit=50 (first page)", "/emails?limit=50"}}
	}},
	{"emails-next-page", "/dashboard/emails", func(w *world, _ *rand.Rand) []call {
		return []call{{"GET /emails?limit=50&after= (second page)", "/emails?limit=50&after=" + url.QueryEscape(w.NextCursor)}}
	}},
	{"emails-status-bounced", "/dashboard/emails?status=bounced", func(*world, *rand.Rand) []call {
		return []call{{"GET /emails?status=bounced", "/emails?status=bounced&limit=50"}}
	}},
	{"emails-tag", "/dashboard/emails?tag=campaign:reset", func(*world, *rand.Rand) []call {
		return []call{{"GET /emails?tag=campaign:reset", "/emails?tag=campaign%3Areset&limit=50"}}
	}},
	{"emails-recipient", "/dashboard/emails", func(w *world, _ *rand.Rand) []call {
		return []call{{"GET /emails?recipient= (one customer)", "/emails?limit=50&recipient=" + url.QueryEscape(w.Recipient)}}
	}},
	{"emails-subject-no-match", "/dashboard/emails", func(*world, *rand.Rand) []call {
		return []call{{"GET /emails?subjectContains= (no match)", "/emails?limit=50&subjectContains=no-such-subject"}}
	}},
	{"email", "/dashboard/emails/x", func(w *world, r *rand.Rand) []call {
		id := w.EmailIDs[r.IntN(len(w.EmailIDs))]
		return []call{{"GET /emails/{id}", "/emails/" + id}, {"GET /emails/{id}/events", "/emails/" + id + "/events"},
			{"GET /webhooks", "/webhooks"}}
	}},
	{"domains", "/dashboard/domains", func(*world, *rand.Rand) []call { return []call{{"GET /domains", "/domains"}} }},
	{"webhooks", "/dashboard/webhooks", func(*world, *rand.Rand) []call { return []call{{"GET /webhooks", "/webhooks"}} }},
	{"suppressions", "/dashboard/suppressions", func(*world, *rand.Rand) []call {
		return []call{{"GET /suppressions?limit=50", "/suppressions?limit=50"}}
	}},
}

// timings gathers the first-byte times of the measured window by label.
type timings struct {
	mu      sync.Mutex
	byLabel map[string][]time.Duration
	errors  map[string]int
	bytes   map[string]int64 // largest answer seen, as sent (gzip when the service compresses)
}

func (t *timings) add(label string, d time.Duration, size int64, failed bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if failed {
		t.errors[label]++
		return
	}
	t.byLabel[label] = append(t.byLabel[label], d)
	t.bytes[label] = max(t.bytes[label], size)
}

// browser is one signed-in user with a connection of its own, as a
// browser tab keeps one.
type browser struct {
	base    string
	session string
	http    *http.Client
}

func newBrowser(base, session string) *browser {
	tr := &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute, DisableCompression: true}
	return &browser{base: base, session: session, http: &http.Client{Transport: tr, Timeout: time.Minute}}
}

// get fetches path as the page's script does and returns the time to the
// first byte of the answer (Do returns once the status line and headers
// are in), the answer's size and its status.
func (b *browser) get(ctx context.Context, path string) (time.Duration, int64, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.base+path, nil)
	if err != nil {
		return 0, 0, 0, err
	}
	req.Header.Set("Cookie", "carteiro_session="+b.session)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Accept-Language", "en")
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("X-Carteiro-Mode", "live")
	began := time.Now()
	resp, err := b.http.Do(req)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("GET %s: %w", path, err)
	}
	first := time.Since(began)
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		return first, n, resp.StatusCode, fmt.Errorf("GET %s: read: %w", path, err)
	}
	return first, n, resp.StatusCode, nil
}

// view loads one page: the shell, then its calls one after another, and
// records each first byte, and the page's slowest, when measured says so.
func (b *browser) view(ctx context.Context, p page, w *world, r *rand.Rand, t *timings, measured bool) {
	var slowest time.Duration
	failed := false
	record := func(label string, d time.Duration, size int64, status int, err error) {
		bad := err != nil || status != http.StatusOK
		failed = failed || bad
		slowest = max(slowest, d)
		if measured && ctx.Err() == nil {
			t.add(label, d, size, bad)
		}
	}
	d, size, status, err := b.get(ctx, p.Shell)
	record("GET /dashboard/... (the page itself)", d, size, status, err)
	for _, c := range p.Calls(w, r) {
		d, size, status, err := b.get(ctx, "/v1/platform"+c.Path)
		record(c.Label, d, size, status, err)
	}
	if measured && ctx.Err() == nil {
		t.add("page: "+p.Name, slowest, 0, failed)
	}
}

// browse has every user open pages at random, one after another, from now
// through warm-up and the window; timings hold the window's.
func browse(ctx context.Context, base string, sessions []string, w *world, pages []page, warmup, window time.Duration) *timings {
	t := &timings{byLabel: map[string][]time.Duration{}, errors: map[string]int{}, bytes: map[string]int64{}}
	from := time.Now().Add(warmup)
	to := from.Add(window)
	ctx, cancel := context.WithDeadline(ctx, to)
	defer cancel()
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Go(func() {
			b := newBrowser(base, s)
			r := rand.New(rand.NewPCG(uint64(i), 26))
			for ctx.Err() == nil {
				b.view(ctx, pages[r.IntN(len(pages))], w, r, t, time.Now().After(from))
			}
		})
	}
	wg.Wait()
	return t
}
