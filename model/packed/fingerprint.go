package packed

import (
	"unsafe"

	"github.com/hwepoch/hwepoch/model"
)

// Fingerprint hashes p straight from its struct, without packing it: the
// bytes of replicas 0..n-1 (each without the unused tail of its controller
// queue) and of the controller and ghost fields. The explorer fingerprints
// every successor but packs only those it has not seen, so this is what a
// duplicate costs. It relies on the struct being canonical: equal states
// are equal structs, unused array entries zero (Next, FromModel and
// Permute keep them so; TestNextEqualsModel and TestPermuteIsCanonical
// check it). buf is scratch of at least FingerprintBuf bytes.
func Fingerprint(n int, p *State, buf []byte) uint64 {
	k := 0
	for i := range n {
		r := &p.R[i]
		head := unsafe.Slice((*byte)(unsafe.Pointer(r)), queueOffset)
		k += copy(buf[k:], head)
		q := unsafe.Slice((*byte)(unsafe.Pointer(&r.Queue[0])), int(r.QueueLen)*msgSize)
		k += copy(buf[k:], q)
		tail := unsafe.Slice((*byte)(unsafe.Pointer(&r.Inflight)), 2*msgSize)
		k += copy(buf[k:], tail)
	}
	ctrl := [...]int8{p.CtrlLeader, p.CtrlEpoch, int8(p.CtrlIsr), p.CtrlPartitionEpoch, int8(p.CtrlElr),
		int8(p.CtrlLastKnownElr), p.NextID, p.Crashes}
	for _, x := range ctrl {
		buf[k] = byte(x)
		k++
	}
	for _, w := range [...]uint32{p.Acked, p.Committed} {
		buf[k], buf[k+1], buf[k+2], buf[k+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		k += 4
	}
	return model.Hash64(buf[:k])
}

const (
	queueOffset = unsafe.Offsetof(Replica{}.Queue)
	msgSize     = int(unsafe.Sizeof(Msg{}))
)

// FingerprintBuf is the scratch Fingerprint needs: the replicas, then 8
// bytes of the controller's and ghost fields and 8 of the acked and
// committed sets.
const FingerprintBuf = MaxReplicas*int(unsafe.Sizeof(Replica{})) + 16

// The struct layout Fingerprint relies on: Inflight and AlterPartition
// follow the queue, back to back.
var _ = [1]struct{}{}[unsafe.Offsetof(Replica{}.AlterPartition)-unsafe.Offsetof(Replica{}.Inflight)-unsafe.Sizeof(Msg{})]
