// Package tlc runs the TLC model checker on the spec and reads what it says.
//
// TLC is not in any package registry this project can reach, so nothing here
// installs it: the caller names tla2tools.jar through TLA2TOOLS_JAR, and
// MissingJarHelp tells a user how to get one.
package tlc

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Result is what one TLC run reported, read from its console output.
type Result struct {
	Version  string // "TLC2 Version 2026.11.30.075224 (rev: cc6b616)"
	Verdict  string // "holds", "violated" or "error"
	Property string // the violated invariant or action property
	// Temporal: a temporal property is violated; TLC does not say which
	// (Property stays "" unless the caller knows: see Run.LiveProperties).
	Temporal        bool
	Error           string  // TLC's error text when Verdict is "error"
	DistinctStates  int64   // "M distinct states found"
	StatesGenerated int64   // "N states generated"
	Depth           int     // "The depth of the complete state graph search is D."
	TraceLength     int     // states in the counterexample (0 when none)
	Workers         int     // "with W workers"
	Seconds         float64 // wall time, measured by the caller
}

var (
	reVersion  = regexp.MustCompile(`^TLC2 Version .*$`)
	reViolated = regexp.MustCompile(`^Error: (?:Invariant|Action property) (\S+) is violated\.`)
	// A liveness violation: TLC does not say which temporal property.
	reTemporal      = regexp.MustCompile(`^Error: Temporal properties were violated\.`)
	reTemporalNamed = regexp.MustCompile(`^Error: Temporal property (\S+) was violated\.`)
	reCounts        = regexp.MustCompile(`^([\d,]+) states generated, ([\d,]+) distinct states found`)
	reDepth         = regexp.MustCompile(`^The depth of the complete state graph search is (\d+)\.`)
	reState         = regexp.MustCompile(`^State (\d+):`)
	reWorkers       = regexp.MustCompile(`with (\d+) workers? on`)
	reCompleted     = regexp.MustCompile(`^Model checking completed\. No error has been found\.`)
	reError         = regexp.MustCompile(`^Error: (.*)$`)
	// TLC's distributed mode: the server's banner, and one line per worker
	// thread that joined.
	reServerVersion = regexp.MustCompile(`^TLC2 TLC Server Version (.*)$`)
	reRegistered    = regexp.MustCompile(`^Registration for worker at \S+ completed`)
	// A worker's error, in the worker sections hwepoch appends to a
	// distributed run's log ("# workerN| ..."), as RMI's exception trace
	// (sun.rmi.server.exceptionTrace) prints it: TLCApp.checkState's
	// "Error: Invariant P is violated." (or Implied-action, Implied-init),
	// or the message of an evaluation error.
	reWorkerError     = regexp.MustCompile(`^# worker\d+\| .*\btlc2\.tool\.WorkerException: (.*)$`)
	reWorkerViolation = regexp.MustCompile(`^Error: (?:Invariant|Implied-action|Implied-init) (\S+) is violated\.`)
)

// behaviorHeader starts the error trace TLC prints.
const behaviorHeader = "Error: The behavior up to this point is"

// Parse reads TLC's console output. It never fails on odd lines: whatever
// it cannot place is ignored, and a run that neither completed nor reported
// a violation is a Verdict "error" carrying TLC's first error line. A count
// too large for an int64 is an error naming its line.
func Parse(r io.Reader) (Result, error) {
	var res Result
	completed, behavior := false, false
	exception := "" // "The exception was a ..." and its message line
	registered := 0
	var workerErrors []string // distinct, in order
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	// A count out of range is an error, not a silent 0 (the regular
	// expressions admit only digits and commas, so range is all that can
	// fail).
	var bad error
	lineNo := 0
	atoi64 := func(s string) int64 {
		v, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil && bad == nil {
			bad = fmt.Errorf("TLC output line %d: the number %s is out of range", lineNo, s)
		}
		return v
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case res.Version == "" && reVersion.MatchString(line):
			res.Version = strings.TrimSpace(line)
		case res.Version == "" && reServerVersion.MatchString(line):
			// The same version string as tlc2.TLC prints, so runs compare.
			res.Version = "TLC2 Version " + strings.TrimSpace(reServerVersion.FindStringSubmatch(line)[1])
		case reRegistered.MatchString(line):
			registered++
		case reWorkerError.MatchString(line):
			if e := strings.TrimSpace(reWorkerError.FindStringSubmatch(line)[1]); !slices.Contains(workerErrors, e) {
				workerErrors = append(workerErrors, e)
			}
		case strings.HasPrefix(line, behaviorHeader):
			behavior = true
		case reViolated.MatchString(line):
			if res.Property == "" {
				res.Property = reViolated.FindStringSubmatch(line)[1]
			}
		case reTemporal.MatchString(line):
			res.Temporal = true
		case reTemporalNamed.MatchString(line):
			res.Temporal = true
			if res.Property == "" {
				res.Property = reTemporalNamed.FindStringSubmatch(line)[1]
			}
		case reCounts.MatchString(line):
			m := reCounts.FindStringSubmatch(line)
			res.StatesGenerated = atoi64(m[1])
			res.DistinctStates = atoi64(m[2])
		case reDepth.MatchString(line):
			res.Depth = int(atoi64(reDepth.FindStringSubmatch(line)[1]))
		case reState.MatchString(line):
			n := int(atoi64(reState.FindStringSubmatch(line)[1]))
			if n > res.TraceLength {
				res.TraceLength = n
			}
		case reCompleted.MatchString(line):
			completed = true
		case strings.HasPrefix(line, "The exception was a ") && exception == "":
			exception = strings.TrimPrefix(line, "The exception was a ")
		case exception != "" && strings.HasPrefix(line, ": ") && !strings.Contains(exception, ": "):
			exception += strings.TrimRight(line, " ")
		case reError.MatchString(line) && res.Error == "":
			res.Error = reError.FindStringSubmatch(line)[1]
		}
		if res.Workers == 0 && reWorkers.MatchString(line) {
			res.Workers = int(atoi64(reWorkers.FindStringSubmatch(line)[1]))
		}
	}
	if err := sc.Err(); err != nil {
		return res, fmt.Errorf("reading TLC output: %w", err)
	}
	if bad != nil {
		return res, bad
	}
	if res.Workers == 0 {
		res.Workers = registered
	}
	if res.Property == "" && !completed && behavior && res.TraceLength > 0 && len(workerErrors) > 0 {
		// TLC's distributed server printed the trace of a worker's error
		// but not the error; the worker's exception trace names it.
		if m := reWorkerViolation.FindStringSubmatch(workerErrors[0]); m != nil && len(workerErrors) == 1 {
			res.Property = m[1]
		} else {
			res.Error = fmt.Sprintf("TLC printed a %d-state error trace; the workers threw: %s", res.TraceLength,
				strings.Join(workerErrors, "; "))
		}
	}
	switch {
	case res.Property != "" || res.Temporal:
		res.Verdict = "violated"
		res.Error = ""
	case completed:
		res.Verdict = "holds"
		res.Error = ""
	default:
		res.Verdict = "error"
		if res.Error == "" && behavior && res.TraceLength > 0 {
			// TLC's distributed server prints the trace of a worker's
			// error but not the error (TLCServerThread drops the
			// WorkerException's message): a violated invariant and an
			// evaluation error look alike.
			res.Error = fmt.Sprintf("TLC printed a %d-state error trace without saying what failed (TLC's distributed mode does not print a worker's error message)", res.TraceLength)
		}
		if strings.HasPrefix(res.Error, "TLC threw an unexpected exception") && exception != "" {
			res.Error += " " + exception // the exception says what happened
		}
		if res.Error == "" {
			res.Error = "TLC neither completed nor reported a violation (killed, out of memory, or a timeout?)"
		}
	}
	return res, nil
}
