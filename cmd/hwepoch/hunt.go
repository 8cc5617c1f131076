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
counterexample's length, and TLC's time over the explorer's. With -seeds N
the seeded searches (swarm, cells) run N times, with seeds S, S+1, ...,
and each cell says the median time, the spread (fastest-slowest run) and
how many runs found the bug, k/N ("> T (k/N)" when fewer than N/2+1 did);
-tlc-seeds likewise for tlc-sim. bfs and tlc-bfs do not depend on a seed
and run once. Where a search found nothing, the notes
under the table say why (how deep the breadth-first search got and how
fast its levels still grow, how many walks the swarm took, where the cell
search was).

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
  cells     the explorer's cell search: breadth first, under symmetry, but
            keeping at most K states (8, doubled each round) of each
            abstract cell (roles, epochs, logs, HWs, fetch states, the
            controller's view, records acked and committed, crashes),
            preferring states whose in-flight messages are new for their
            cell, each level ordered by the seed; it walks on past
            counterexamples without the signature (same -seed, same result)
  tlc-bfs   TLC, breadth first, under symmetry (needs TLA2TOOLS_JAR)
  tlc-sim   TLC -simulate -depth D -seed S, again with the next seed while
            its counterexample lacks the signature (needs TLA2TOOLS_JAR)

Every counterexample found is replayed on the model and on the
implementation (as hwepoch replay does) and drawn (as hwepoch render does);
the table says whether each one passed. With -out DIR each cell's
counterexample (of several runs, the one the notes show: the run closest
to the median) is written as DIR/BUG-METHOD.itf.json, DIR/BUG-METHOD.svg
and DIR/BUG-METHOD.html (an interactive page, as hwepoch view writes),
with DIR/hunt-BUG.cfg to read it back: hwepoch replay -cfg
DIR/hunt-BUG.cfg DIR/BUG-METHOD.itf.json.

Progress goes to stderr, the table to stdout. Exit status 0 when every
search ran and every counterexample replayed on the implementation (a
search that found nothing in time is a measurement, not a failure), 1
otherwise, 2 on bad use.

flags:`

func runHunt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hunt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bugs := fs.String("bugs", "all", "comma-separated bugs to hunt: "+strings.Join(hunt.Names(), ", "))
	methods := fs.String("methods", "all", "comma-separated searches: bfs, swarm, cells, tlc-bfs, tlc-sim")
	workers := fs.Int("workers", 2, "explorer workers and TLC -workers")
	seed := fs.Uint64("seed", 1, "the swarm's and the cell search's seed, TLC -simulate's first seed")
	seeds := fs.Int("seeds", 1, "run the swarm and the cell search this many times, with seeds -seed, -seed+1, ...")
	tlcSeeds := fs.Int("tlc-seeds", 1, fmt.Sprintf("run TLC -simulate this many times, from TLC seeds -seed, -seed+%d, ...", hunt.TLCSeedStride))
	timeout := fs.Duration("timeout", 120*time.Second, "per explorer search")
	tlcTimeout := fs.Duration("tlc-timeout", 600*time.Second, "per TLC search")
	out := fs.String("out", "", "write each counterexample (ITF), its SVG timeline and the bug's .cfg into this directory")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, huntUsage)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args, maxArgs(0, ""), between("workers", 1, 256), between("seeds", 1, 1000),
		between("tlc-seeds", 1, 1000), positive("timeout"),
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
	opt := hunt.Options{Workers: *workers, Seed: *seed, Seeds: *seeds, TLCSeeds: *tlcSeeds, Timeout: *timeout, TLCTimeout: *tlcTimeout}
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
			var runs []hunt.Cell
			var certs []*hunt.Certified
			for _, sd := range opt.SeedsFor(m) {
				o := opt
				o.Seed = sd
				if !*quiet {
					seedText := ""
					if m.Seeded() {
						seedText = fmt.Sprintf(" seed %d", sd)
					}
					fmt.Fprintf(stderr, "hunt: %s (%s, %s): %s%s ...\n", b.Name, b.Release, b.Bounds(), m, seedText)
				}
				c := hunt.Search(ctx, b, m, o)
				cert := hunt.Certify(b, &c, "")
				if c.Status == hunt.Failed || (cert != nil && !cert.OK()) {
					status = 1
				}
				if !*quiet {
					fmt.Fprintf(stderr, "hunt: %s %s: %s after %.2fs, %d states, counterexample of %d states\n",
						b.Name, m, c.Status, c.Seconds, c.States, c.Length())
				}
				runs = append(runs, c)
				certs = append(certs, cert)
			}
			// -out: the files of the run the notes show.
			if k := hunt.Representative(runs); *out != "" && runs[k].Trace != nil {
				cert := hunt.Certify(b, &runs[k], *out)
				if !cert.OK() {
					status = 1
				}
				certs[k] = cert
			}
			row.Runs = append(row.Runs, runs)
			row.Certs = append(row.Certs, certs)
		}
		rows = append(rows, row)
	}
	hunt.WriteTable(stdout, rows, ms, opt)
	return status
}
