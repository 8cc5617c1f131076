package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hwepoch/hwepoch/internal/hunt"
	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/model/tlccfg"
)

func init() {
	register("hunt", "time to bug: how fast the explorer and TLC find each historical bug at three replicas", runHunt)
}

const huntUsage = `usage: hwepoch hunt [flags]

For each historical bug, searches its Kafka release (or ablation) at three
replicas for the invariant the bug breaks, and prints one table: per search,
the wall time to the first counterexample that carries the bug's signature
(its mechanism, not only its symptom), the states searched and the
counterexample's length, and TLC's time over the explorer's.

Bugs (-bugs):
  kip101-1     KIP-101 scenario 1, acked record lost to HW truncation (0.10.2.2)
  kip101-2     KIP-101 scenario 2, divergence after an unflushed-tail loss (0.10.2.2)
  kip279       KIP-279, divergence after fast leader changes (0.11.0.3)
  kip320       KIP-320 zombie follower (ablation: 2.1.0 without fencing)
  kafka-7128   KAFKA-7128, a follower joins the ISR below the leader's epoch start (0.11.0.3)

Searches (-methods):
  bfs       the explorer, breadth first, under symmetry; it stops at its first
            violation, which may lack the signature (marked '*')
  swarm     the explorer's swarm of seeded random walks, each with its own
            action weights, step bound and model bounds, until a walk's
            counterexample carries the signature (same -seed, same result)
  tlc-bfs   TLC, breadth first, under symmetry (needs TLA2TOOLS_JAR)
  tlc-sim   TLC -simulate -depth D -seed S, again with the next seed while
            its counterexample lacks the signature (needs TLA2TOOLS_JAR)

Every counterexample found is replayed on the model and on the
implementation (as hwepoch replay does) and drawn (as hwepoch render does);
the table says whether each one passed. With -out DIR each is written as
DIR/BUG-METHOD.itf.json, DIR/BUG-METHOD.svg and DIR/BUG-METHOD.html (an
interactive page, as hwepoch view writes), with DIR/hunt-BUG.cfg to read it
back: hwepoch replay -cfg DIR/hunt-BUG.cfg DIR/BUG-METHOD.itf.json.

Progress goes to stderr, the table to stdout. Exit status 0 when every
search ran and every counterexample replayed on the implementation (a
search that found nothing in time is a measurement, not a failure), 1
otherwise, 2 on bad use.

flags:`

func runHunt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hunt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bugs := fs.String("bugs", "all", "comma-separated bugs to hunt: "+strings.Join(hunt.Names(), ", "))
	methods := fs.String("methods", "all", "comma-separated searches: bfs, swarm, tlc-bfs, tlc-sim")
	workers := fs.Int("workers", 2, "explorer workers and TLC -workers")
	seed := fs.Uint64("seed", 1, "the swarm's seed and TLC -simulate's first seed")
	timeout := fs.Duration("timeout", 120*time.Second, "per explorer search")
	tlcTimeout := fs.Duration("tlc-timeout", 600*time.Second, "per TLC search")
	out := fs.String("out", "", "write each counterexample (ITF), its SVG timeline and the bug's .cfg into this directory")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, huntUsage)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args, maxArgs(0, ""), between("workers", 1, 256), positive("timeout"),
		positive("tlc-timeout"), nonEmpty("bugs"), nonEmpty("methods")); done {
		return code
	}
	fail := usageError(stderr, "hunt")
	bs, err := hunt.Lookup(*bugs)
	if err != nil {
		return fail("-bugs: %v", err)
	}
	ms, err := hunt.ParseMethods(*methods)
	if err != nil {
		return fail("-methods: %v", err)
	}
	opt := hunt.Options{Workers: *workers, Seed: *seed, Timeout: *timeout, TLCTimeout: *tlcTimeout}
	if !*quiet {
		opt.Progress = stderr
	}
	for _, m := range ms {
		if !m.IsTLC() {
			continue
		}
		jar, err := tlc.Jar()
		var missing *tlc.MissingJarError
		switch {
		case errors.As(err, &missing):
			fmt.Fprintf(stderr, "hunt: %s: the TLC columns say \"no TLC\"\n", missing.Problem)
		case err != nil:
			return fail("%v", err)
		default:
			spec, err := tlccfg.FindSpecDir(".")
			if err != nil {
				return fail("TLC needs the spec's modules: %v", err)
			}
			opt.Jar, opt.SpecDir = jar, spec
		}
		break
	}
	if *out != "" {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return fail("-out: %v", err)
		}
	}

	ctx := context.Background()
	var rows []hunt.Row
	status := 0
	for _, b := range bs {
		row := hunt.Row{Bug: b}
		for _, m := range ms {
			if !*quiet {
				fmt.Fprintf(stderr, "hunt: %s (%s, %s): %s ...\n", b.Name, b.Release, b.Bounds(), m)
			}
			c := hunt.Search(ctx, b, m, opt)
			cert := hunt.Certify(b, &c, *out)
			if c.Status == hunt.Failed || (cert != nil && !cert.OK()) {
				status = 1
			}
			if !*quiet {
				fmt.Fprintf(stderr, "hunt: %s %s: %s after %.2fs, %d states, counterexample of %d states\n",
					b.Name, m, c.Status, c.Seconds, c.States, c.Length())
			}
			row.Cells = append(row.Cells, c)
			row.Certs = append(row.Certs, cert)
		}
		rows = append(rows, row)
	}
	hunt.WriteTable(stdout, rows, ms, opt)
	return status
}
