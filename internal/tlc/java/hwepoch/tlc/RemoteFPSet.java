// RemoteFPSet makes TLC's distributed mode (tlc2.tool.distributed) run with
// an unpatched tla2tools.jar built from tlaplus/tlaplus at or after commit
// 6fde5a9ea ("Remove RMI dependency from FPSet for CheerpJ compatibility").
//
// That commit made tlc2.tool.fp.FPSet stop extending UnicastRemoteObject.
// FPSet still implements the java.rmi.Remote interface FPSetRMI, but nothing
// exports it any more, so when a TLCWorker calls TLCServer.getFPSetManager()
// the server's NonDistributedFPSetManager is serialized with its FPSet field
// by value instead of as a remote stub, and fails:
//
//   java.io.NotSerializableException: tlc2.tool.fp.MultiFPSet
//
// TLC chooses the FPSet class named by the system property
// tlc2.tool.fp.FPSet.impl when -fpbits is 0 and the class is not a
// DiskFPSet. This class is such an FPSet: it holds TLC's default fingerprint
// set (a MultiFPSet of two MSBDiskFPSets, as `-fpbits 1` gives) and exports
// itself with UnicastRemoteObject, so RMI hands workers a stub and every
// put/contains runs on the server, as it did before that commit. Only the
// server needs it on its class path; workers see the FPSetRMI interface.
//
// `hwepoch tlc -distributed` compiles it with javac against the jar. See
// docs/tlc.md ("TLC's distributed mode").
package hwepoch.tlc;

import java.io.IOException;
import java.rmi.NoSuchObjectException;
import java.rmi.RemoteException;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;

import tlc2.tool.TLCTrace;
import tlc2.tool.fp.FPSet;
import tlc2.tool.fp.FPSetConfiguration;
import tlc2.tool.fp.FPSetFactory;
import tlc2.util.BitVector;
import tlc2.util.LongVec;

@SuppressWarnings("serial")
public final class RemoteFPSet extends FPSet {
	private final FPSet inner;
	private final CountDownLatch exited = new CountDownLatch(1);

	public RemoteFPSet(final FPSetConfiguration cfg) throws RemoteException {
		super(cfg);
		// TLC's default: the default implementation nested 2^1 times.
		final FPSetConfiguration innerCfg = new FPSetConfiguration(cfg.getRatio(),
				FPSetFactory.getImplementationDefault());
		innerCfg.setFpBits(1);
		this.inner = FPSetFactory.getFPSet(innerCfg);
		UnicastRemoteObject.exportObject(this, 0);
	}

	@Override
	public FPSet init(int numThreads, String metadir, String filename) throws IOException {
		inner.init(numThreads, metadir, filename);
		return this;
	}

	@Override public void incWorkers(int num) { inner.incWorkers(num); }
	@Override public long size() { return inner.size(); }
	@Override public boolean put(long fp) throws IOException { return inner.put(fp); }
	@Override public boolean contains(long fp) throws IOException { return inner.contains(fp); }
	@Override public void close() { inner.close(); }
	@Override public void addThread() throws IOException { inner.addThread(); }
	@Override public long checkFPs() throws IOException { return inner.checkFPs(); }
	@Override public void beginChkpt() throws IOException { inner.beginChkpt(); }
	@Override public void commitChkpt() throws IOException { inner.commitChkpt(); }
	@Override public void recover(TLCTrace trace) throws IOException { inner.recover(trace); }
	@Override public void recoverFP(long fp) throws IOException { inner.recoverFP(fp); }
	@Override public void beginChkpt(String filename) throws IOException { inner.beginChkpt(filename); }
	@Override public void commitChkpt(String filename) throws IOException { inner.commitChkpt(filename); }
	@Override public void recover(String filename) throws IOException { inner.recover(filename); }
	@Override public boolean checkInvariant() throws IOException { return inner.checkInvariant(); }
	@Override public boolean checkInvariant(long expectFPs) throws IOException { return inner.checkInvariant(expectFPs); }
	@Override public BitVector putBlock(LongVec fpv) throws IOException { return inner.putBlock(fpv); }
	@Override public BitVector containsBlock(LongVec fpv) throws IOException { return inner.containsBlock(fpv); }
	@Override public long getStatesSeen() throws RemoteException { return inner.getStatesSeen(); }

	// The server calls exit when model checking is over. TLC's DiskFPSet.exit
	// ends the JVM (System.exit) on its own; should the set not, unexport,
	// or the exported object keeps the JVM alive.
	@Override
	public void exit(boolean cleanup) throws IOException {
		inner.exit(cleanup);
		unexportObject(true);
		exited.countDown();
	}

	/** Waits until the server has called exit (FPSetServer). */
	public void awaitExit() throws InterruptedException {
		exited.await();
	}

	@Override
	public void unexportObject(boolean force) {
		inner.unexportObject(force);
		try {
			UnicastRemoteObject.unexportObject(this, force);
		} catch (NoSuchObjectException e) {
			// already unexported
		}
	}
}
