package freerun

import (
	"fmt"
	"io"

	"github.com/hwepoch/hwepoch/impl/cluster"
)

// Dump writes the recording's events of the focus partition in the
// validator's order, one line each with the broker's post-state, for
// reading a failure in full.
func Dump(w io.Writer, rec Recording) error {
	evs, err := Linearize(rec)
	for i, e := range evs {
		writeEvent(w, i, e, " ")
	}
	return err
}

func writeEvent(w io.Writer, i int, e cluster.Event, mark string) {
	p := e.Post
	fmt.Fprintf(w, "%s %4d %-60s msg %d->%v", mark, i, describe(e), e.Received, e.Sent)
	if e.Action != cluster.ActElect {
		fmt.Fprintf(w, " | %s e%d leader %d leo %d hw %d isr %v pending %v %s slot %d", p.Role, p.LeaderEpoch, p.Leader, p.LEO, p.HW, p.Isr, p.PendingIsr, p.FetchState, p.FetchInFlight)
	}
	fmt.Fprintln(w)
}
