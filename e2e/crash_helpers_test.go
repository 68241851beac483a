package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// crashRig runs the real binary against an SMTP sink and a DNS server that
// outlive it, so a test can kill it (SIGKILL) and start it again on the
// same database.
type crashRig struct {
	dns    *testutil.DNSServer
	smtp   *testutil.SMTPServer
	env    map[string]string
	key    string
	p      *process
	client *http.Client
}

// newCrashRig starts the binary and verifies domain through the API.
func newCrashRig(t *testing.T, b testserver.Backend, domain string) *crashRig {
	t.Helper()
	r := newRig(t, b)
	r.p = startProcess(t, r.env)
	r.setUp(t, domain)
	return r
}

// newRig makes the SMTP sink, the DNS server and the settings of a rig, on
// a fresh database, without starting anything.
func newRig(t *testing.T, b testserver.Backend) *crashRig {
	t.Helper()
	r := &crashRig{dns: testutil.NewDNSServer(t), smtp: testutil.NewSMTPServer(t), client: &http.Client{Timeout: 30 * time.Second}}
	r.env = map[string]string{
		"CARTEIRO_HTTP_ADDR": "127.0.0.1:0", "CARTEIRO_DATABASE_URL": testserver.DatabaseURL(t, b),
		"CARTEIRO_DNS_SERVER": r.dns.Addr(), "CARTEIRO_INBOUND_ADDR": "", "CARTEIRO_SUBMISSION_ADDR": "", "CARTEIRO_DELIVERY": "relay",
		"CARTEIRO_RELAY_URL": "smtp+plain://" + r.smtp.Addr(), "CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true",
		"CARTEIRO_SMTP_TIMEOUT": "2s", "CARTEIRO_JOB_TIMEOUT": "2s", "CARTEIRO_WARMUP": "off",
		"CARTEIRO_RATE_LIMIT_KEY": "100000,100000", "CARTEIRO_RATE_LIMIT_IP": "100000,100000",
		"CARTEIRO_SECRET_KEY": "crash-test-secret-key-0123456789abcdef",
	}
	return r
}

// setUp takes the live key the first process (r.p) printed and verifies
// domain through the API.
func (r *crashRig) setUp(t *testing.T, domain string) {
	t.Helper()
	r.key = r.p.liveKey
	testserver.Must(t, r.key != "", "no live key printed on first start")
	status, body, err := r.call("POST", "/v1/product/domains", map[string]string{"name": domain})
	testserver.Must(t, err == nil && status == 201, "create domain: %d %s %v", status, body, err)
	var d createdDomain
	_ = json.Unmarshal(body, &d)
	for _, rec := range d.Records {
		if rec.Type == "TXT" {
			r.dns.SetTXT(rec.Host, rec.Value)
		} else {
			r.dns.SetCNAME(rec.Host, rec.Value)
		}
	}
	status, body, _ = r.call("POST", "/v1/product/domains/"+d.ID+"/verify", nil)
	testserver.Must(t, status == 202 && strings.Contains(string(body), `"verified"`), "verify: %d %s", status, body)
}

// restart starts the binary again on the same database.
func (r *crashRig) restart(t *testing.T) {
	t.Helper()
	r.p = startProcess(t, r.env)
	testserver.Must(t, r.p.liveKey == "", "keys printed again on a restart (D4: once)")
}

// call sends one API request with the live key to the running process.
func (r *crashRig) call(method, path string, body any) (int, []byte, error) {
	return r.callOn(r.p, method, path, body)
}

// callOn sends one API request to process p (which may have been killed).
func (r *crashRig) callOn(p *process, method, path string, body any) (int, []byte, error) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, "http://"+p.addr+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+r.key)
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.Bytes(), err
}
