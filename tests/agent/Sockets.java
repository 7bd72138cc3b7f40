// Two processes (node srv: "server PORTFILE", node cli: "client PORTFILE")
// exchange messages over TCP (java.net sockets, and a NIO SocketChannel
// for thread B); run with
// handlers=Sockets.handleA:Sockets.handleB.  Client thread A sends a1 then
// a2 on its connection, thread B sends b1 on another; the server reads a1,
// a2 (handleA each) and b1 (handleB, which ends by an exception), then
// replies on B's connection.
//
// Message races: b1 against a1 and against a2 (other connections, no
// order); a1 and a2 share a connection: TCP keeps their order.  Handler
// races: handleA's and handleB's accesses to "count".  Within the client
// node, B's read of xa is ordered after A's write through the server.
//! message Sockets.sendA@a1 Sockets.sendB@b1
//! message Sockets.sendA@a2 Sockets.sendB@b1
//! handler Sockets.handleA@ca Sockets.handleB@cb
//! data Sockets.sendA@ya Sockets.sendB@ry
//~ Sockets.sendA@xa Sockets.sendB@rx
//~ Sockets.handleA@oa Sockets.handleA@oa
import java.io.*;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.*;

public class Sockets {
    static int count, onlyA, xa, ya;

    static void handleA(byte[] m) {
        count++;                                // @ca
        onlyA++;                                // @oa
    }

    static void handleB(byte[] m) {
        count++;                                // @cb
        throw new IllegalStateException("a handler that ends by an exception");
    }

    static byte[] read4(InputStream in) throws IOException {
        byte[] b = new byte[4];
        for (int n = 0; n < 4; ) {
            int k = in.read(b, n, 4 - n);
            if (k < 0) throw new EOFException();
            n += k;
        }
        return b;
    }

    static void server(Path portFile) throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            Files.writeString(portFile.resolveSibling(portFile.getFileName() + ".tmp"), "" + ss.getLocalPort());
            Files.move(portFile.resolveSibling(portFile.getFileName() + ".tmp"), portFile);
            Socket s1 = ss.accept(), s2 = ss.accept();
            Socket a = null, b = null;
            byte[] first1 = read4(s1.getInputStream());
            if (first1[0] == 'a') { a = s1; b = s2; } else { a = s2; b = s1; }
            // whichever came first, each message is handled once
            byte[] m;
            if (a == s1) {
                handleA(first1);
                handleA(read4(a.getInputStream()));
                m = read4(b.getInputStream());
                try { handleB(m); } catch (IllegalStateException e) { }
            } else {
                try { handleB(first1); } catch (IllegalStateException e) { }
                handleA(read4(a.getInputStream()));
                handleA(read4(a.getInputStream()));
            }
            OutputStream o = b.getOutputStream();
            o.write("done".getBytes());
            o.flush();
            read4(b.getInputStream());          // "bye": the client read the reply
            a.close();
            b.close();
        }
    }

    static int port;

    static void sendA() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream o = s.getOutputStream();
            xa = 1;                             // @xa
            o.write("a1..".getBytes());         // @a1
            o.write("a2..".getBytes());         // @a2
            ya = 1;                             // @ya
            s.getInputStream().read();          // until the server closes
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void sendB() {                       // NIO: a SocketChannel
        try (SocketChannel s = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))) {
            s.write(ByteBuffer.wrap("b1..".getBytes()));          // @b1
            ByteBuffer reply = ByteBuffer.allocate(4);
            while (reply.hasRemaining())        // the server's reply
                if (s.read(reply) < 0) throw new EOFException();
            int x = xa;                         // @rx
            int y = ya;                         // @ry
            s.write(ByteBuffer.wrap("bye.".getBytes()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Path pf = Paths.get(args[1]);
        if (args[0].equals("server")) {
            server(pf);
            return;
        }
        while (!Files.exists(pf)) Thread.sleep(10);
        port = Integer.parseInt(Files.readString(pf).trim());
        Thread a = new Thread(Sockets::sendA), b = new Thread(Sockets::sendB);
        a.start();
        b.start();
        a.join();
        b.join();
    }
}
