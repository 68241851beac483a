package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// postfixInstance is a Postfix of its own, apart from any system one: its
// configuration, queue and data directories are in a temporary directory
// (`postfix -c DIR`), and it listens on a free loopback port only. Where it
// sends what it accepts is the starter's: startPostfix relays everything to
// Carteiro's submission port as a smarthost client does (docs/smtp.md),
// startPostfixMTA delivers to an inbound MX as any MTA on the Internet
// does. It never binds port 25, never reads /etc/postfix/main.cf, and never
// asks the system resolver anything: every next hop is a bracketed IP
// address and DNS lookups are off.
type postfixInstance struct {
	dir  string // config_directory
	addr string // its smtpd, 127.0.0.1:port
}

// postfixMasterCf runs every service unchrooted (the queue directory is a
// bare temporary directory, without the etc/ files a chroot needs), smtpd
// on the test's port, and postlogd so that maillog_file works without
// syslog.
const postfixMasterCf = `%s inet n - n - - smtpd
pickup    unix  n - n 60    1 pickup
cleanup   unix  n - n -     0 cleanup
qmgr      unix  n - n 300   1 qmgr
tlsmgr    unix  - - n 1000? 1 tlsmgr
rewrite   unix  - - n -     - trivial-rewrite
bounce    unix  - - n -     0 bounce
defer     unix  - - n -     0 bounce
trace     unix  - - n -     0 bounce
verify    unix  - - n -     1 verify
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -     - proxymap
smtp      unix  - - n -     - smtp
relay     unix  - - n -     - smtp
showq     unix  n - n -     - showq
error     unix  - - n -     - error
retry     unix  - - n -     - error
discard   unix  - - n -     - discard
anvil     unix  - - n -     1 anvil
scache    unix  - - n -     1 scache
postlog   unix-dgram n - n - 1 postlogd
`

// startPostfix starts a Postfix relaying to relayhost (host:port, an IP
// address) with AUTH as user/password and TLS required, and stops it when
// the test ends.
func startPostfix(t *testing.T, relayhost, user, password string) *postfixInstance {
	t.Helper()
	return startPostfixRouted(t, []string{
		// The smarthost, as docs/smtp.md configures it.
		"relayhost = " + bracketedHop(t, relayhost),
		"smtp_sasl_auth_enable = yes",
		"smtp_sasl_password_maps = static:" + user + ":" + password,
		"smtp_sasl_security_options = noanonymous",
		"smtp_sasl_tls_security_options = noanonymous",
		"smtp_tls_security_level = encrypt",
	})
}

// startPostfixMTA starts a Postfix that delivers mail for domain the way an
// MTA on the Internet does to the domain's MX: no authentication,
// opportunistic STARTTLS (the certificate is not checked), and the
// message's headers as the client wrote them. Postfix's resolver cannot be
// pointed at the test's DNS server (it reads /etc/resolv.conf, port 53
// only), so the test resolves the MX there and gives the result as
// nexthop (host:port, an IP address) in a transport map; every other
// domain is refused, so nothing is ever looked up.
func startPostfixMTA(t *testing.T, domain, nexthop string) *postfixInstance {
	t.Helper()
	return startPostfixRouted(t, []string{
		"transport_maps = inline:{" + domain + "=smtp:" + bracketedHop(t, nexthop) + "}",
		"default_transport = error:this test delivers only to " + domain,
		"smtp_tls_security_level = may",
		// No canonical rewriting of the sender's headers, so that what
		// arrives is what was sent plus Postfix's Received.
		"local_header_rewrite_clients =",
	})
}

// bracketedHop is host:port as Postfix's [host]:port, which Postfix uses
// as it is, without an MX lookup; host must be an IP address, never a
// name to resolve.
func bracketedHop(t *testing.T, hostport string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(hostport)
	testserver.Must(t, err == nil && net.ParseIP(host) != nil, "next hop %q must be an IP address and port, never a name to resolve", hostport)
	return "[" + host + "]:" + port
}

// startPostfixRouted starts a Postfix whose main.cf has routing's lines
// for where mail goes, and stops it when the test ends. Postfix must be
// installed (.ci/run installs Debian's) and the test must run as root, as
// Postfix's master does.
func startPostfixRouted(t *testing.T, routing []string) *postfixInstance {
	t.Helper()
	bin, err := exec.LookPath("postfix")
	if err == nil && os.Geteuid() != 0 {
		err = fmt.Errorf("postfix must be started as root (euid %d)", os.Geteuid())
	}
	if err == nil {
		err = postfixUsersExist()
	}
	if err != nil {
		testserver.RequireService(t, "postfix", err)
	}
	// A short path: Postfix's UNIX sockets live under the queue directory,
	// and a socket path is limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "carteiro-postfix-")
	testserver.Must(t, err == nil, "temp dir: %v", err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	// Postfix's daemons run as the postfix user and must reach the queue.
	testserver.Must(t, os.Chmod(dir, 0o755) == nil, "chmod %s", dir)
	for _, sub := range []string{"queue", "data"} {
		testserver.Must(t, os.Mkdir(filepath.Join(dir, sub), 0o755) == nil, "mkdir %s", sub)
	}
	mustChownPostfix(t, filepath.Join(dir, "data"))

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	testserver.Must(t, err == nil, "free port: %v", err)
	addr := ln.Addr().String()
	_ = ln.Close()

	mainCf := strings.Join(append([]string{
		"compatibility_level = 3.6",
		"queue_directory = " + dir + "/queue",
		"data_directory = " + dir + "/data",
		"maillog_file = " + dir + "/maillog",
		"maillog_file_prefixes = " + dir,
		"mail_owner = postfix",
		"setgid_group = postdrop",
		"inet_interfaces = 127.0.0.1",
		"inet_protocols = ipv4",
		"myhostname = postfix.test",
		"mydomain = postfix.test",
		"myorigin = $myhostname",
		"mydestination =",
		"mynetworks = 127.0.0.0/8",
		"smtpd_relay_restrictions = permit_mynetworks, reject",
		"local_transport = error:no local delivery in this test",
		"alias_maps =",
		"alias_database =",
		"smtp_tls_loglevel = 1", // logs "TLS connection established", which the tests look for
		// Nothing through the system resolver.
		"smtp_dns_support_level = disabled",
		"smtp_host_lookup = native",
		"smtpd_peername_lookup = no",
		// Retry at once if Carteiro is not up yet, not after minutes.
		"queue_run_delay = 1s",
		"minimal_backoff_time = 1s",
		"maximal_backoff_time = 2s",
	}, append(routing, "")...), "\n")
	testserver.Must(t, os.WriteFile(filepath.Join(dir, "main.cf"), []byte(mainCf), 0o644) == nil, "main.cf")
	testserver.Must(t, os.WriteFile(filepath.Join(dir, "master.cf"), []byte(fmt.Sprintf(postfixMasterCf, addr)), 0o644) == nil, "master.cf")

	p := &postfixInstance{dir: dir, addr: addr}
	out, err := p.command(bin, "start")
	// A start can fail when another test took the free port between its
	// Close above and Postfix's bind (seen once in CI): try a new port.
	for attempt := 0; err != nil && attempt < 3; attempt++ {
		time.Sleep(time.Second)
		ln, lerr := net.Listen("tcp4", "127.0.0.1:0")
		testserver.Must(t, lerr == nil, "free port: %v", lerr)
		p.addr = ln.Addr().String()
		_ = ln.Close()
		testserver.Must(t, os.WriteFile(filepath.Join(dir, "master.cf"), []byte(fmt.Sprintf(postfixMasterCf, p.addr)), 0o644) == nil, "master.cf")
		out, err = p.command(bin, "start")
	}
	testserver.Must(t, err == nil, "postfix -c %s start: %v\n%s\n%s", dir, err, out, p.log())
	addr = p.addr
	t.Cleanup(func() {
		if out, err := p.command(bin, "stop"); err != nil {
			t.Errorf("postfix -c %s stop: %v\n%s", dir, err, out)
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return p
		}
		testserver.Must(t, time.Now().Before(deadline), "postfix not listening on %s: %v\n%s", addr, err, p.log())
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *postfixInstance) command(bin, verb string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return exec.CommandContext(ctx, bin, "-c", p.dir, verb).CombinedOutput()
}

// log is Postfix's mail log so far.
func (p *postfixInstance) log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "maillog"))
	return string(b)
}

// postfixUsersExist checks the postfix user and postdrop group that
// Debian's package creates.
func postfixUsersExist() error {
	if _, err := user.Lookup("postfix"); err != nil {
		return err
	}
	_, err := user.LookupGroup("postdrop")
	return err
}

func mustChownPostfix(t *testing.T, path string) {
	t.Helper()
	u, err := user.Lookup("postfix")
	testserver.Must(t, err == nil, "user postfix: %v", err)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	testserver.Must(t, os.Chown(path, uid, gid) == nil, "chown %s", path)
}
