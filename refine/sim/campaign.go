package sim

import (
	"runtime/debug"
	"sync"
	"time"

	"github.com/hwepoch/hwepoch/impl/broker"
	"github.com/hwepoch/hwepoch/impl/controller"
)

// CampaignOptions are a run of many seeds.
type CampaignOptions struct {
	First    uint64
	Seeds    int
	Settings []string
	Events   int
	Dir      string
	Mutants  []broker.Mutant
	// ControllerMutants are seeded controller bugs.
	ControllerMutants []controller.Mutant
	// Parallel runs this many seeds at a time (default 1). Each run is a
	// function of its seed alone, so the results do not depend on it.
	Parallel int
	// LiveFor and Unvalidated are Options' (the liveness check).
	LiveFor     time.Duration
	Unvalidated bool
}

// Campaign runs seeds First..First+Seeds-1, each validated, and hands
// each result to each in seed order.
func Campaign(opt CampaignOptions, each func(Result)) {
	defer lessGC()()
	workers := max(opt.Parallel, 1)
	type job struct {
		i   int
		out chan Result
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.out <- Run(Options{Seed: opt.First + uint64(j.i), Settings: opt.Settings, Events: opt.Events,
					Dir: opt.Dir, Mutants: opt.Mutants, ControllerMutants: opt.ControllerMutants,
					LiveFor: opt.LiveFor, Unvalidated: opt.Unvalidated})
			}
		}()
	}
	// A window of pending results, taken in order.
	pending := make([]chan Result, 0, workers)
	next := 0
	for next < opt.Seeds || len(pending) > 0 {
		for next < opt.Seeds && len(pending) < 2*workers {
			ch := make(chan Result, 1)
			pending = append(pending, ch)
			jobs <- job{next, ch}
			next++
		}
		r := <-pending[0]
		pending = pending[1:]
		if each != nil {
			each(r)
		}
	}
	close(jobs)
	wg.Wait()
}

// campaignGCPercent is the garbage collector's GOGC while a campaign runs.
// A seed's heap is small (a few MiB) and short-lived, and at the default
// 100 the collector and the scavenger returning its pages to the system
// took about a third of a campaign's CPU; at 400 a campaign of 60
// LeaderEpoch seeds takes 0.65 of the CPU time, its peak memory going from
// 18 to 30 MiB. Nothing a run does depends on it: the event logs are the
// same.
const campaignGCPercent = 400

var (
	gcMu        sync.Mutex
	gcCampaigns int // campaigns running
	gcBefore    int // GOGC before the first of them
)

// lessGC raises GOGC to campaignGCPercent (unless it is higher already)
// while any campaign runs; the returned function ends this campaign's
// share and restores GOGC after the last.
func lessGC() (restore func()) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcCampaigns == 0 {
		gcBefore = debug.SetGCPercent(campaignGCPercent)
		if gcBefore < 0 || gcBefore > campaignGCPercent {
			debug.SetGCPercent(gcBefore) // off or higher: leave it
		}
	}
	gcCampaigns++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcCampaigns--; gcCampaigns == 0 {
			debug.SetGCPercent(gcBefore)
		}
	}
}
