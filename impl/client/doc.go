// Package client is the producer and the consumer of the concurrent
// implementation, talking to brokers over impl/netsim.
//
// The Producer sends one record per ProduceRequest with the configured acks
// and keeps the ghost the spec calls acked: the (offset, id) of every record
// a broker acknowledged. Record ids are consecutive over the records that
// were appended: an id refused before append (NOT_LEADER_OR_FOLLOWER,
// NOT_ENOUGH_REPLICAS), or whose request could not be sent at all, is
// reused when it is the latest one handed out, so a producer that sends one
// record at a time numbers its records exactly as the spec's nextId does.
//
// The Consumer reads a partition from its leader up to the high watermark
// (a Fetch with the consumer replica id).
package client
