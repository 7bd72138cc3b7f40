// Datagrams between two threads of one JVM: a DatagramSocket and a
// DatagramChannel send to a receiving DatagramSocket.  Datagrams keep no
// order, so the two sends race (a message race); what the receiver reads
// after the first datagram was written before it was sent (no race), or
// after (a race).
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

//! message Datagrams.main@s1 Datagrams.main@s2
//! data Datagrams.main@after Datagrams.receiver@ra
//~ Datagrams.main@before Datagrams.receiver@rb
public class Datagrams {
    static int before, after;
    static DatagramSocket in;

    static void receiver() {
        try {
            DatagramPacket p = new DatagramPacket(new byte[64], 64);
            in.receive(p);
            in.receive(new DatagramPacket(new byte[64], 64));
            int b = before;                     // @rb
            int a = after;                      // @ra
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        in = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        InetSocketAddress to = new InetSocketAddress(InetAddress.getLoopbackAddress(), in.getLocalPort());
        Thread t = new Thread(Datagrams::receiver);
        t.start();
        before = 1;                             // @before
        try (DatagramSocket out = new DatagramSocket(0, InetAddress.getLoopbackAddress());
             DatagramChannel ch = DatagramChannel.open()) {
            byte[] m = "first".getBytes();
            out.send(new DatagramPacket(m, m.length, to));          // @s1
            ch.send(ByteBuffer.wrap("second".getBytes()), to);      // @s2
            after = 1;                          // @after
        }
        t.join();
        in.close();
    }
}
