// Package protocol is the wire vocabulary of the concurrent implementation:
// the requests and responses brokers, the controller and clients exchange
// over impl/netsim, and Kafka's error codes. Messages are plain values (no
// pointers into anyone's state), so a message in flight can be shown in a
// snapshot and a trace as it is.
//
// The names follow Kafka's protocol (LeaderAndIsrRequest, FetchRequest,
// OffsetsForLeaderEpochRequest, ProduceRequest, AlterPartitionRequest) and
// spec/Replication.tla's message records (type, src, dst, epoch, offset,
// currentEpoch, error, records, hw, leo).
//
// Every message carries a Header: a correlation id that pairs a response
// with its request (Kafka's RequestHeader.correlationId) and the sender's
// Lamport clock, the causal stamp of the event that sent it.
package protocol
