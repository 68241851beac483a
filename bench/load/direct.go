package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/carteiro/carteiro/bench/internal/child"
	"github.com/carteiro/carteiro/bench/internal/database"
	"github.com/carteiro/carteiro/bench/internal/machine"
	"github.com/carteiro/carteiro/internal/testutil"
)

// The direct scenario (issue 32, D80): the e2e scenario through the relay
// first, as the yardstick, then the same against a fresh database with
// CARTEIRO_DELIVERY=direct to several in-process exchangers, one per
// destination, each on its own loopback address and all on one port
// (CARTEIRO_DIRECT_PORT). Destination 0 receives for three recipient
// domains, the others for one each; emails go to the domains in turn.

// exchangerIP is destination i's loopback address.
func exchangerIP(i int) string { return "127.0.0." + strconv.Itoa(71+i) }

// directDomains are the recipient domains and the destination of each.
func directDomains(destinations int) (domains []string, destinationOf map[string]int) {
	destinationOf = map[string]int{}
	for i := range destinations {
		names := []string{fmt.Sprintf("d%d.example", i)}
		if i == 0 {
			names = append(names, "d0b.example", "d0c.example")
		}
		for _, d := range names {
			destinationOf[d] = i
			domains = append(domains, d)
		}
	}
	return domains, destinationOf
}

// e2eRun is one e2e measurement on its own server, database, DNS and sink.
type e2eRun struct {
	res       e2eResult
	rep       *report
	cpu       time.Duration // the server's CPU over the run
	wall      time.Duration
	peak      int64
	delivered float64 // delivered per second, first accept to last delivery
}

// runE2EOn starts a server with env (plus the run's database and DNS),
// verifies the sending domain, runs the e2e scenario and stops the server.
func runE2EOn(ctx context.Context, o options, bin, dir string, dns *testutil.DNSServer, sk *sink, env func(dbURL string) []string,
	domains []string, progress func(string, ...any)) (*e2eRun, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	db, err := database.New(ctx, o.store, dir, database.DefaultPostgresURL(), o.pgParams)
	if err != nil {
		return nil, err
	}
	defer func() {
		if !o.keep {
			if derr := db.Drop(); derr != nil {
				progress("drop database: %v", derr)
			}
		}
	}()
	srv, err := child.Start(bin, dir, o.role, env(db.URL), "")
	if err != nil {
		return nil, err
	}
	defer func() { _ = srv.Stop() }()
	progress("carteiro pid %d at %s, log %s", srv.Pid(), srv.URL, srv.LogPath)
	api := newAPIClient(srv.URL, srv.LiveKey, o.clients)
	api.recipientDomains = domains
	if _, err := verifyDomain(ctx, api, dns); err != nil {
		return nil, err
	}
	run := &e2eRun{rep: &report{opts: o, machine: describeMachine(bin), when: time.Now()}}
	rss := machine.StartRSSSampler(srv.Pid(), 250*time.Millisecond)
	cpu0, err0 := machine.ProcessCPU(srv.Pid())
	began := time.Now()
	run.res = runE2E(ctx, o.clients, o.emails, o.batch, o.timeout, api, sk)
	run.wall = time.Since(began)
	cpu1, err1 := machine.ProcessCPU(srv.Pid())
	if err0 == nil && err1 == nil {
		run.cpu = cpu1 - cpu0
	}
	run.peak, _ = rss.Stop()
	describeE2E(run.rep, o, run.res, sk.Unsigned())
	if run.cpu > 0 {
		run.rep.row("server CPU over the run", "%s of one core", percentOfCore(run.cpu, run.wall))
	}
	if span := run.res.lastDeliver.Sub(run.res.firstAccept); span > 0 && run.res.delivered > 0 {
		run.delivered = float64(run.res.delivered) / span.Seconds()
	}
	return run, nil
}

// runDirect runs the relay yardstick, then direct delivery, and prints
// both blocks.
func runDirect(ctx context.Context, o options, bin, dir string, stdout io.Writer, progress func(string, ...any)) error {
	var tlsConfig *tls.Config
	relayScheme, relayEnv := "smtp+plain://", []string(nil)
	if o.directTLS {
		// Carteiro's direct delivery encrypts without authenticating the
		// certificate (RFC 7435), so the tests' loopback one does for every
		// exchanger address. The relay yardstick then encrypts too
		// (smtp://, STARTTLS required and its certificate verified against
		// this authority through SSL_CERT_FILE): a plain-text yardstick
		// would charge direct delivery for TLS the relay skipped.
		pki, err := testutil.NewPKI("benchmark exchangers")
		if err != nil {
			return fmt.Errorf("exchanger certificate: %w", err)
		}
		tlsConfig = pki.ServerTLSConfig()
		caFile := filepath.Join(dir, "benchmark-ca.pem")
		if err := os.WriteFile(caFile, pki.CAPEM(), 0o600); err != nil {
			return fmt.Errorf("write the benchmark authority: %w", err)
		}
		relayScheme, relayEnv = "smtp://", []string{"SSL_CERT_FILE=" + caFile}
	}

	// The yardstick: e2e through the relay, as -scenario e2e.
	relayOpts := o
	relayOpts.scenario = "e2e"
	relaySink, relayDNS, stopRelay, err := startSinkAndDNS(tlsConfig)
	if err != nil {
		return err
	}
	defer stopRelay()
	progress("relay (yardstick): %d emails in batches of %d with %d clients, %s", o.emails, o.batch, o.clients, relayScheme)
	relay, err := runE2EOn(ctx, relayOpts, bin, filepath.Join(dir, "relay"), relayDNS, relaySink, func(dbURL string) []string {
		env := append(serverEnv(dbURL, relaySink.Addr(), relayDNS.Addr(), ""), relayEnv...)
		return append(env, "CARTEIRO_RELAY_URL="+relayScheme+relaySink.Addr()) // the last setting of a name wins (os/exec)
	}, nil, progress)
	if err != nil {
		return fmt.Errorf("relay run: %w", err)
	}
	relay.rep.row("relay", "%s (STARTTLS %v)", relayScheme, o.directTLS)
	relay.rep.note("Yardstick of the direct scenario below (same binary, same run).")
	relay.rep.write(stdout)

	// Direct: one exchanger per destination.
	sk, dns, stop, err := startSinkAndDNS(nil)
	if err != nil {
		return err
	}
	defer stop()
	var exchangers []*exchanger
	defer func() {
		for _, x := range exchangers {
			x.Close()
		}
	}()
	port := "0"
	for i := range o.destinations {
		x, err := sk.listenAlso(net.JoinHostPort(exchangerIP(i), port), tlsConfig)
		if err != nil {
			return err
		}
		exchangers = append(exchangers, x)
		_, port, _ = net.SplitHostPort(x.addr)
		dns.SetA(fmt.Sprintf("mx.dest-%d.example", i), exchangerIP(i))
	}
	domains, destinationOf := directDomains(o.destinations)
	for _, d := range domains {
		dns.SetMX(d, testutil.MX{Host: fmt.Sprintf("mx.dest-%d.example", destinationOf[d]), Pref: 10})
	}
	progress("direct: %d destinations at %s…, port %s, %d connections each", o.destinations, exchangerIP(0), port, o.destinationConnections)
	direct, err := runE2EOn(ctx, o, bin, filepath.Join(dir, "direct"), dns, sk, func(dbURL string) []string {
		return append(serverEnv(dbURL, sk.Addr(), dns.Addr(), ""),
			"CARTEIRO_DELIVERY=direct", "CARTEIRO_DIRECT_PORT="+port,
			"CARTEIRO_DESTINATION_CONNECTIONS="+strconv.Itoa(o.destinationConnections))
	}, domains, progress)
	if err != nil {
		return fmt.Errorf("direct run: %w", err)
	}
	var perDest []string
	within := true
	for i, x := range exchangers {
		perDest = append(perDest, fmt.Sprintf("dest-%d: %d connections, at most %d at once", i, x.connections.Load(), x.maxOpen.Load()))
		within = within && x.maxOpen.Load() <= int64(o.destinationConnections)
	}
	direct.rep.row("destinations (recipient domains)", "%d (%s), STARTTLS offered: %v", o.destinations, strings.Join(domains, ", "), o.directTLS)
	direct.rep.row("connections per destination", "%s", strings.Join(perDest, "; "))
	direct.rep.row("relay e2e of the same run, delivered per second", "%s", perSecond(relay.delivered))
	direct.rep.check("direct delivered per second ≥ the relay e2e rate of the same run",
		fmt.Sprintf("%s vs %s", perSecond(direct.delivered), perSecond(relay.delivered)), direct.delivered >= relay.delivered && direct.res.complete)
	direct.rep.check(fmt.Sprintf("≤ %d connections per destination at any moment", o.destinationConnections), strings.Join(perDest, "; "), within)
	direct.rep.write(stdout)
	if ctx.Err() != nil {
		return errors.New("interrupted")
	}
	return nil
}

// startSinkAndDNS starts the sink (offering STARTTLS with tlsConfig when
// it is not nil) and the DNS server of one server under test; stop stops
// both.
func startSinkAndDNS(tlsConfig *tls.Config) (*sink, *testutil.DNSServer, func(), error) {
	sk, err := startSink(tlsConfig)
	if err != nil {
		return nil, nil, nil, err
	}
	dns, err := testutil.StartDNSServer()
	if err != nil {
		sk.Close()
		return nil, nil, nil, err
	}
	return sk, dns, func() { dns.Close(); sk.Close() }, nil
}
