package explore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hwepoch/hwepoch/model"
)

// worker is what one goroutine of forChunks keeps between its chunks.
type worker struct {
	sc  model.Scratch
	buf []byte
	pk  *packedWorker // the packed engine's scratch, made on first use
}

// forChunks runs do on every chunk of a frontier of n states, on up to
// workers goroutines that claim chunks in turn (each with its own worker). Workers stop claiming once ctx is done, so a deadline ends
// a search within a chunk's time rather than at the end of a level.
func forChunks(ctx context.Context, n, workers int, do func(ci, lo, hi int, w *worker)) {
	nchunks := (n + chunkSize - 1) / chunkSize
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, nchunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{buf: make([]byte, 0, 512)}
			for {
				ci := int(next.Add(1) - 1)
				if ci >= nchunks || ctx.Err() != nil {
					return
				}
				do(ci, ci*chunkSize, min((ci+1)*chunkSize, n), w)
			}
		}()
	}
	wg.Wait()
}
