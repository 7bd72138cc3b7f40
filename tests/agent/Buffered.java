// One socket read that brings two messages (run with
// handlers=Buffered.handleA).  The server reads B's hello (no handler),
// then waits until A's two messages have both arrived and reads them
// through a BufferedInputStream: one receive of 8 bytes, then two
// handleA calls.  The second call follows no receive of its own: the
// agent must not record it as a handler (spider would open it for B's
// older hello and report handleA against itself as a handler race).
//! message Buffered.sendB@hello Buffered.sendA@a12
//~ Buffered.handleA@ca Buffered.handleA@ca
import java.io.*;
import java.net.*;

public class Buffered {
    static int count, portA, portB;

    static void handleA(byte[] m) {
        count++;                                // @ca
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

    static void sendA() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), portA)) {
            s.getOutputStream().write("a1..a2..".getBytes());   // @a12
            s.getInputStream().read();          // until the server closes
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void sendB() {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), portB)) {
            s.getOutputStream().write("hi..".getBytes());       // @hello
            s.getInputStream().read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket ssA = new ServerSocket(0, 5, lo); ServerSocket ssB = new ServerSocket(0, 5, lo)) {
            portA = ssA.getLocalPort();
            portB = ssB.getLocalPort();
            Thread a = new Thread(Buffered::sendA), b = new Thread(Buffered::sendB);
            a.start();
            b.start();
            Socket sb = ssB.accept();
            read4(sb.getInputStream());
            Socket sa = ssA.accept();
            while (sa.getInputStream().available() < 8) Thread.sleep(1);
            InputStream in = new BufferedInputStream(sa.getInputStream());
            handleA(read4(in));
            handleA(read4(in));
            sa.close();
            sb.close();
            a.join();
            b.join();
        }
    }
}
