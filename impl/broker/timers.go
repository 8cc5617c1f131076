package broker

import "time"

// runTimers is free mode's scheduler (KafkaScheduler): ISR expiration
// (ReplicaManager.maybeShrinkIsr every replica.lag.time.max.ms / 2), the HW
// checkpoint, the periodic log flush, and AlterPartition retries.
func (b *Broker) runTimers() {
	defer b.wg.Done()
	isr := time.NewTicker(max(b.cfg.ReplicaLagTimeMax/2, time.Millisecond))
	defer isr.Stop()
	ckpt := time.NewTicker(b.cfg.HighWatermarkCheckpointInterval)
	defer ckpt.Stop()
	retry := time.NewTicker(max(b.cfg.RequestTimeout/2, time.Millisecond))
	defer retry.Stop()
	var fetchWait <-chan time.Time
	if b.cfg.ReplicaFetchWaitMax > 0 {
		t := time.NewTicker(max(b.cfg.ReplicaFetchWaitMax/2, 100*time.Microsecond))
		defer t.Stop()
		fetchWait = t.C
	}
	var flush <-chan time.Time
	if b.cfg.LogFlushInterval > 0 {
		t := time.NewTicker(b.cfg.LogFlushInterval)
		defer t.Stop()
		flush = t.C
	}
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-isr.C:
			b.maybeShrinkIsr()
		case <-ckpt.C:
			_, err := b.CheckpointHighWatermarks()
			b.fail(err)
		case <-retry.C:
			b.retryAlterPartitions(b.now())
		case <-fetchWait:
			b.completeDelayedFetches(true)
		case <-flush:
			for _, p := range b.rm.all() {
				b.fail(p.log.Flush())
			}
		}
	}
}

// maybeShrinkIsr proposes removing a lagging follower from the ISR of each
// partition this broker leads (ReplicaManager.maybeShrinkIsr ->
// Partition.maybeShrinkIsr).
func (b *Broker) maybeShrinkIsr() {
	now := b.now()
	for _, p := range b.rm.all() {
		p.mu.Lock()
		f := int32(-1)
		if p.role == Leader && p.pendingIsr == nil {
			f = p.outOfSyncReplica(now)
		}
		p.mu.Unlock()
		if f >= 0 {
			b.proposeIsrChange(p, isrShrink, f)
		}
	}
}
