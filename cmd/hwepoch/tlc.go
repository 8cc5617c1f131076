package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hwepoch/hwepoch/internal/tlc"
	"github.com/hwepoch/hwepoch/internal/verify"
	"github.com/hwepoch/hwepoch/model/tlccfg"
	"github.com/hwepoch/hwepoch/trace/tlcjson"

	"github.com/hwepoch/hwepoch/internal/inputfile"
)

func init() {
	register("tlc", "run TLC on the spec's configurations and record logs and traces (needs TLA2TOOLS_JAR)", runTLC)
}

func runTLC(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tlc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	specDir := fs.String("spec", "spec", "directory of Replication.tla, the .cfg files and manifest.json")
	outDir := fs.String("out", filepath.Join("traces", "tlc"), "where logs, traces and runs.json are recorded")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "TLC worker threads (with -distributed: threads in each worker process)")
	distributed := fs.Int("distributed", 0, "run TLC's distributed mode: a TLCServer and this many local TLCWorker processes (0: tlc2.TLC in one process)")
	rmiHost := fs.String("rmi-host", "127.0.0.1", "with -distributed: the address the TLC server advertises and workers connect to (java.rmi.server.hostname)")
	fpsets := fs.Int("fpsets", 0, "with -distributed: spread the fingerprint set over this many local FPSet server processes (0: in the server)")
	remoteFPSets := fs.Int("remote-fpsets", 0, "with -distributed: also wait for this many FPSet servers started by hand on other machines (docs/tlc.md)")
	port := fs.Int("port", 0, "with -distributed: the TLC server's RMI registry port (0: a free port; TLC's own default is 10997)")
	timeout := fs.Duration("timeout", 30*time.Minute, "give up on one configuration after this long")
	simulate := fs.Int("simulate", 0, "instead of checking, export this many random behaviours of -sim-config from TLC's simulation mode")
	simConfig := fs.String("sim-config", "le-fenced-2", "configuration for -simulate")
	depth := fs.Int("depth", 30, "length of each simulated behaviour (states)")
	seed := fs.Int64("seed", 1, "seed of the first simulated behaviour; the i-th uses seed+i")
	record := fs.Bool("record", true, "update runs.json with the results")
	table := fs.Bool("table", false, "do not run TLC: rewrite docs/spec.md's verdict table from runs.json")
	docPath := fs.String("doc", filepath.Join("docs", "spec.md"), "the document -table rewrites")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: hwepoch tlc [flags] [config ...]

Runs TLC on every configuration in spec/manifest.json (or the ones named),
compares each verdict with the manifest, and records under traces/tlc/ the
TLC log, the counterexample or witness trace (-dumpTrace json and tla) and
runs.json with TLC's version, the spec and config hashes, distinct states,
states generated, depth, wall time and workers. Exit status 0 only when
every verdict is the expected one.

With -distributed N it runs TLC's distributed mode instead: a TLCServer
and N local TLCWorker processes over Java RMI (workers on other machines
may join; see docs/tlc.md); -fpsets K also moves the fingerprint set into
K FPSet server processes. It records under traces/tlc/distributed/ the
server's log (with each worker's output) and a runs.json entry
"distributed/<config>" with mode "distributed": the verdict and distinct
states are TLC's; states generated and depth are not comparable with
tlc2.TLC's, and no trace files are exported.

With -simulate N it instead exports N random behaviours of -sim-config
(TLC's simulation mode) as traces/tlc/sim/<config>-seed<S>.json: traces in
which no property is violated, for the refinement checker.

TLA2TOOLS_JAR must name tla2tools.jar.

flags:`)
		printDefaults(fs)
	}
	if code, done := parseFlags(fs, args, positive("workers"), positive("timeout"), atLeast("simulate", 0),
		positive("depth"), noArgsWith("simulate"), noArgsWith("table"),
		needs("depth", "simulate"), needs("seed", "simulate"), needs("sim-config", "simulate"),
		between("distributed", 0, maxDistributedWorkers), between("port", 0, 65535),
		between("fpsets", 0, maxDistributedWorkers), between("remote-fpsets", 0, maxDistributedWorkers),
		needs("rmi-host", "distributed"), needs("port", "distributed"), needs("fpsets", "distributed"), needs("remote-fpsets", "distributed"),
		excludes("distributed", "simulate", "table"), nonEmpty("rmi-host")); done {
		return code
	}
	man, err := tlccfg.LoadManifest(*specDir)
	if err != nil {
		fmt.Fprintln(stderr, "hwepoch tlc:", err)
		return 2
	}
	runs, err := tlcjson.LoadRuns(*outDir)
	if errors.Is(err, os.ErrNotExist) {
		runs, err = &tlcjson.Runs{}, nil
	}
	if err != nil {
		fmt.Fprintln(stderr, "hwepoch tlc:", err)
		return 2
	}
	if *table {
		if err := rewriteTable(*docPath, tlc.VerdictTable(man, runs)); err != nil {
			fmt.Fprintln(stderr, "hwepoch tlc:", err)
			return 1
		}
		fmt.Fprintf(stdout, "rewrote the verdict table in %s\n", *docPath)
		return 0
	}
	jar, err := tlc.Jar()
	if err != nil {
		fmt.Fprintln(stderr, "hwepoch tlc:", err)
		return 2
	}
	specHash, err := tlcjson.FileSHA256(filepath.Join(*specDir, "Replication.tla"))
	if err != nil {
		fmt.Fprintln(stderr, "hwepoch tlc:", err)
		return 2
	}

	type job struct {
		name, config string
		sim          *tlc.Simulation
		dist         *tlc.Distributed
		out          string
	}
	var jobs []job
	if *simulate > 0 {
		if _, ok := man.Lookup(*simConfig); !ok {
			fmt.Fprintf(stderr, "hwepoch tlc: -sim-config %q is not in the manifest\n", *simConfig)
			return 2
		}
		for i := 0; i < *simulate; i++ {
			s := *seed + int64(i)
			name := fmt.Sprintf("%s-seed%d", *simConfig, s)
			jobs = append(jobs, job{name: "sim/" + name, config: *simConfig,
				sim: &tlc.Simulation{Depth: *depth, Seed: s}, out: filepath.Join(*outDir, "sim")})
		}
	} else {
		names := fs.Args()
		if len(names) == 0 {
			for _, c := range man.Configs {
				names = append(names, c.Name)
			}
		}
		for _, n := range names {
			if _, ok := man.Lookup(n); !ok {
				fmt.Fprintf(stderr, "hwepoch tlc: configuration %q is not in %s/manifest.json\n", n, *specDir)
				return 2
			}
			if *distributed > 0 {
				jobs = append(jobs, job{name: "distributed/" + n, config: n, out: filepath.Join(*outDir, "distributed"),
					dist: &tlc.Distributed{Workers: *distributed, Threads: *workers, Host: *rmiHost, Port: *port,
						FPSets: *fpsets, RemoteFPSets: *remoteFPSets}})
				continue
			}
			jobs = append(jobs, job{name: n, config: n, out: *outDir})
		}
	}

	tw := tabwriter.NewWriter(stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "config\texpected\tTLC found\tdistinct\tgenerated\tdepth\ttrace\ttime\t")
	failures := 0
	for _, j := range jobs {
		fmt.Fprintf(stderr, "hwepoch tlc: running %s ...\n", j.name)
		mc, _ := man.Lookup(j.config)
		chk, err := man.LoadCheck(mc)
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch tlc: %v\n", err)
			failures++
			continue
		}
		run := tlc.Run{Jar: jar, SpecDir: *specDir, Module: chk.Module(), Config: j.config,
			Workers: *workers, Simulate: j.sim, OutDir: j.out, OutName: filepath.Base(j.name),
			Progress: stderr, Timeout: *timeout, Distributed: j.dist,
			Mutant: mc.Mutant, LiveProperties: chk.LiveProperties}
		runSpecHash := specHash
		if chk.Live {
			_, runSpecHash, _ = verify.Sums(man, mc)
		}
		res, files, err := run.Execute(context.Background())
		if err != nil {
			fmt.Fprintf(stderr, "hwepoch tlc: %s: %v\n", j.name, err)
			failures++
			continue
		}
		expected := mc.Expect
		if mc.Expect == "violated" {
			expected += " " + mc.Property
		}
		ok := tlc.Matches(mc, res)
		if j.sim != nil {
			expected = "simulated"
			ok = res.Verdict == "simulated"
		}
		found := res.Verdict
		if res.Property != "" {
			found += " " + res.Property
		}
		if res.Verdict == "error" {
			found += ": " + res.Error
		}
		mark := ""
		if !ok {
			mark = "  <-- MISMATCH"
			failures++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.0fs\t%s\n", j.name, expected, found,
			res.DistinctStates, res.StatesGenerated, res.Depth, res.TraceLength, res.Seconds, mark)
		if *record && res.Verdict != "error" {
			cfgHash, _ := tlcjson.FileSHA256(filepath.Join(*specDir, j.config+".cfg"))
			rec := tlcjson.Run{Name: j.name, Mode: tlcjson.ModeBFS, Config: j.config, CfgSHA256: cfgHash,
				SpecSHA256: runSpecHash, TLCVersion: res.Version, Verdict: res.Verdict, Property: res.Property,
				DistinctStates: res.DistinctStates, StatesGenerated: res.StatesGenerated, Depth: res.Depth,
				Seconds: res.Seconds, Workers: res.Workers, Log: relTo(*outDir, j.out, files.Log),
				TraceJSON: relTo(*outDir, j.out, files.TraceJSON), TraceTLA: relTo(*outDir, j.out, files.TraceTLA),
				TraceLength: res.TraceLength}
			if j.sim != nil {
				rec.Mode = tlcjson.ModeSimulate
				rec.Seed = j.sim.Seed
			}
			if j.dist != nil {
				rec.Mode = tlcjson.ModeDistributed
				rec.WorkerProcesses, rec.FPSetServers = j.dist.Workers, j.dist.FPSets+j.dist.RemoteFPSets
			}
			version := res.Version
			if j.dist != nil { // the server's banner lacks tlc2.TLC's "(rev: ...)"
				version = ""
			}
			if _, err := recordRun(*outDir, rec, version, specHash); err != nil {
				fmt.Fprintln(stderr, "hwepoch tlc:", err)
				return 1
			}
		}
	}
	tw.Flush()
	if failures > 0 {
		fmt.Fprintf(stdout, "\n%d of %d runs did not give the expected verdict\n", failures, len(jobs))
		return 1
	}
	fmt.Fprintf(stdout, "\nall %d runs gave the expected verdict\n", len(jobs))
	return 0
}

// maxDistributedWorkers bounds tlc -distributed and -fpsets: each local
// worker or FPSet server is a JVM; more than this on one machine is a typo, not a plan (workers on
// other machines join without it, see docs/tlc.md).
const maxDistributedWorkers = 64

// rewriteTable replaces the text between the verdict-table markers of doc.
func rewriteTable(doc, table string) error {
	b, err := inputfile.ReadFile(doc)
	if err != nil {
		return err
	}
	s := string(b)
	i := strings.Index(s, tlc.TableBegin)
	j := strings.Index(s, tlc.TableEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q ... %q markers", doc, tlc.TableBegin, tlc.TableEnd)
	}
	s = s[:i+len(tlc.TableBegin)] + "\n" + table + s[j:]
	return os.WriteFile(doc, []byte(s), 0o644)
}

// relTo names a file in dir relative to base ("" stays "").
func relTo(base, dir, file string) string {
	if file == "" {
		return ""
	}
	rel, err := filepath.Rel(base, filepath.Join(dir, file))
	if err != nil {
		return file
	}
	return filepath.ToSlash(rel)
}

// recordRun adds rec to outDir's runs.json, reading the file again just
// before writing it: another hwepoch tlc may have recorded runs since this
// one started (TLC runs take hours), and writing back what was read at the
// start would drop them. version "" keeps the recorded TLC version.
func recordRun(outDir string, rec tlcjson.Run, version, specHash string) (*tlcjson.Runs, error) {
	runs, err := tlcjson.LoadRuns(outDir)
	if errors.Is(err, os.ErrNotExist) {
		runs, err = &tlcjson.Runs{}, nil
	}
	if err != nil {
		return nil, err
	}
	runs.Put(rec)
	if version != "" {
		runs.TLCVersion = version
	}
	runs.SpecSHA256 = specHash
	return runs, runs.Write(outDir)
}
