package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/hwepoch/hwepoch/impl/protocol"
)

func TestFreeSmokeThroughput(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	cfg.Mode = Free
	cfg.Brokers = 3
	cfg.MinInsyncReplicas = 2
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	n, acked := 0, 0
	var last protocol.Error
	for ctx.Err() == nil {
		r, _ := c.Producer().Produce(ctx, c.Focus())
		n++
		if r.Acked() {
			acked++
		} else {
			last = r.Error
		}
	}
	t.Logf("%d sent, %d acked, last error %v\n%s", n, acked, last, dump(c.Snapshot()))
}
