// FPSetServer is tlc2.tool.distributed.fp.DistributedFPSet (a fingerprint
// set server, used with -Dtlc2.tool.distributed.TLCServer.expectedFPSetCount)
// for the unpatched jar: DistributedFPSet.main hands the server a MultiFPSet
// that nothing exports, and registerFPSet fails with
// NotSerializableException: tlc2.tool.fp.MultiFPSet (see RemoteFPSet). This
// registers an exported RemoteFPSet instead — the same set, a MultiFPSet of
// two MSBDiskFPSets, as DistributedFPSet builds — and stays up until the
// server calls exit on it.
//
// usage: java -cp tla2tools.jar:CLASSES [-Dtlc2.tool.distributed.TLCServer.port=P]
//        hwepoch.tlc.FPSetServer SERVERHOST
package hwepoch.tlc;

import java.io.File;
import java.net.InetAddress;
import java.rmi.ConnectException;
import java.rmi.Naming;
import java.rmi.NotBoundException;

import tlc2.tool.distributed.TLCServer;
import tlc2.tool.distributed.TLCServerRMI;
import tlc2.tool.fp.FPSetConfiguration;

public final class FPSetServer {
	public static void main(String[] args) throws Exception {
		if (args.length != 1) {
			System.err.println("usage: java hwepoch.tlc.FPSetServer SERVERHOST");
			System.exit(2);
		}
		final String url = "//" + args[0] + ":" + TLCServer.Port + "/" + TLCServer.SERVER_NAME;
		TLCServerRMI server = null;
		for (int wait = 1; server == null; wait = Math.min(2 * wait, 16)) {
			try {
				server = (TLCServerRMI) Naming.lookup(url);
			} catch (ConnectException | NotBoundException e) {
				System.out.println("TLC server at " + url + " not up yet (" + e.getClass().getSimpleName()
						+ "), retrying in " + wait + " s");
				Thread.sleep(wait * 1000L);
			}
		}
		// As DistributedFPSet: all the memory it is given, fingerprints on
		// disk beyond it, under java.io.tmpdir.
		final RemoteFPSet fpSet = new RemoteFPSet(new FPSetConfiguration(1.0d));
		final String dir = System.getProperty("java.io.tmpdir") + File.separator + "FPSet" + System.currentTimeMillis();
		new File(dir).mkdirs();
		fpSet.init(1, dir, "FPSet");
		final String host = InetAddress.getLocalHost().getHostName();
		server.registerFPSet(fpSet, host);
		System.out.println("hwepoch FPSet server at " + host + " registered with " + url);
		fpSet.awaitExit();
		System.out.println("hwepoch FPSet server exiting: " + fpSet.size() + " fingerprints");
		Thread.sleep(1000); // let the reply to the server's exit call go out
		System.exit(0);
	}
}
