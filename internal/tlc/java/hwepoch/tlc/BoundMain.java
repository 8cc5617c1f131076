// BoundMain runs a TLC main class (TLCServer, TLCWorker) with Java RMI's
// listening sockets bound to one address, the system property
// hwepoch.rmi.bind, instead of every interface.
//
// java.rmi.server.hostname only says which address stubs advertise; the
// registry and every exported object still listen on all interfaces, so a
// TLC server meant for loopback would take connections (and deserialize
// what they send) from the whole network. `hwepoch tlc -distributed` binds
// to -rmi-host: 127.0.0.1 by default.
package hwepoch.tlc;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.server.RMISocketFactory;
import java.util.Arrays;

public final class BoundMain {
	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("usage: java -Dhwepoch.rmi.bind=ADDRESS hwepoch.tlc.BoundMain MAINCLASS [ARGS...]");
			System.exit(2);
		}
		final String bind = System.getProperty("hwepoch.rmi.bind");
		if (bind == null || bind.isEmpty()) {
			System.err.println("hwepoch.tlc.BoundMain: set -Dhwepoch.rmi.bind to the address to listen on");
			System.exit(2);
		}
		final InetAddress addr = InetAddress.getByName(bind);
		RMISocketFactory.setSocketFactory(new RMISocketFactory() {
			@Override
			public ServerSocket createServerSocket(int port) throws IOException {
				return new ServerSocket(port, 50, addr);
			}

			@Override
			public Socket createSocket(String host, int port) throws IOException {
				return new Socket(host, port);
			}
		});
		final Method main = Class.forName(args[0]).getMethod("main", String[].class);
		main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
	}
}
