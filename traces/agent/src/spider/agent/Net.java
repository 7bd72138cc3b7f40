package spider.agent;

import static spider.agent.Events.*;

import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.zip.CRC32;

/**
 * TCP sockets and datagrams (Rt.sockW, Rt.chR, Rt.udpSendPost...): a
 * connection's ends, and the SND/RCV lines of sockets and datagrams.
 * The datagram hooks are here whole; Rt's only call them.
 */
final class Net {
    private Net() {}

    // ---------------------------------------------------------------- sockets

    private static final Map<Object, String[]> channels = Collections.synchronizedMap(new WeakHashMap<>());

    private static String[] ends(Object sock) {
        String[] c = channels.get(sock);
        if (c != null) return c;
        InetSocketAddress l = null, r = null;
        try {
            if (sock instanceof Socket) {
                Socket so = (Socket) sock;
                if (so.getInetAddress() == null) return null;
                l = new InetSocketAddress(so.getLocalAddress(), so.getLocalPort());
                r = new InetSocketAddress(so.getInetAddress(), so.getPort());
            } else if (sock instanceof SocketChannel) {
                l = (InetSocketAddress) ((SocketChannel) sock).getLocalAddress();
                r = (InetSocketAddress) ((SocketChannel) sock).getRemoteAddress();
            }
        } catch (Exception e) {
            return null;
        }
        if (l == null || r == null) return null;
        c = new String[] {l.getAddress().getHostAddress(), Integer.toString(l.getPort()),
                          r.getAddress().getHostAddress(), Integer.toString(r.getPort())};
        channels.put(sock, c);
        return c;
    }

    static void sockEv(Object sock, String type, long n) {
        TState s = st();
        if (s == null || n <= 0 && (type.equals("SND") || type.equals("RCV"))) return;
        s.busy = true;
        try {
            String[] c = ends(sock);
            if (c == null) return;
            boolean in = type.equals("RCV") || type.equals("ACCEPT");
            if (type.equals("RCV")) realRecvStart(s);
            StringBuilder b = begin(s, type, callerLoc());
            b.append(",\"socket_type\":\"TCP\",\"src\":\"").append(in ? c[2] : c[0])
             .append("\",\"src_port\":").append(in ? c[3] : c[1])
             .append(",\"dst\":\"").append(in ? c[0] : c[2])
             .append("\",\"dst_port\":").append(in ? c[1] : c[3]);
            if (n >= 0) b.append(",\"size\":").append(n);
            end(s);
        } finally { s.busy = false; }
    }

    // ---------------------------------------------------------------- datagrams
    // A datagram's id is made of its ports, length and CRC-32, which both
    // ends compute alike (an id sent twice is a disjunction for spider).

    private static int port(SocketAddress a) {
        return a instanceof InetSocketAddress ? ((InetSocketAddress) a).getPort() : 0;
    }

    private static String host(SocketAddress a) {
        return a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null
            ? ((InetSocketAddress) a).getAddress().getHostAddress() : "?";
    }

    private static long crc(ByteBuffer b, int from, int to) {
        CRC32 c = new CRC32();
        ByteBuffer d = b.duplicate();
        d.limit(to).position(from);
        c.update(d);
        return c.getValue();
    }

    private static void udp(TState s, String type, SocketAddress from, SocketAddress to, long crc, int len) {
        String id = "udp:" + port(from) + ">" + port(to) + ":" + len + ":" + Long.toHexString(crc);
        begin(s, type, callerLoc()).append(",\"socket_type\":\"UDP\",\"src\":\"").append(host(from))
            .append("\",\"src_port\":").append(port(from)).append(",\"dst\":\"").append(host(to))
            .append("\",\"dst_port\":").append(port(to)).append(",\"message\":\"").append(id)
            .append("\",\"size\":").append(len);
        end(s);
    }

    /** DatagramChannelImpl.send(buf, target), on entry. */
    static void udpSendPre(ByteBuffer b, SocketAddress target) {
        TState s = st();
        if (s == null || b == null) return;
        s.busy = true;
        try {
            s.udpCrc = crc(b, b.position(), b.limit());
            s.udpLen = b.remaining();
            s.udpTarget = target;
        } finally { s.busy = false; }
    }

    /** DatagramChannelImpl.send, on exit with the bytes sent. */
    static void udpSendPost(Object ch, int n) {
        TState s = st();
        if (s == null || n <= 0 || s.udpTarget == null) return;
        s.busy = true;
        try {
            SocketAddress local = null;
            try { local = ((DatagramChannel) ch).getLocalAddress(); } catch (Exception e) { }
            udp(s, "SND", local, s.udpTarget, s.udpCrc, s.udpLen);
            s.udpTarget = null;
        } finally { s.busy = false; }
    }

    /** DatagramChannelImpl.receive(buf), on entry. */
    static void udpRecvPre(ByteBuffer b) {
        TState s = st();
        if (s != null && b != null) s.udpPos = b.position();
    }

    /** DatagramChannelImpl.receive(buf), on exit with the sender. */
    static void udpRecvPost(SocketAddress from, Object ch, ByteBuffer b) {
        TState s = st();
        if (s == null || from == null || b == null) return;
        s.busy = true;
        try {
            SocketAddress local = null;
            try { local = ((DatagramChannel) ch).getLocalAddress(); } catch (Exception e) { }
            realRecvStart(s);
            udp(s, "RCV", from, local, crc(b, s.udpPos, b.position()), b.position() - s.udpPos);
        } finally { s.busy = false; }
    }

    /** DatagramSocket (the adaptor): send(p) on entry, receive(p) on exit. */
    static void udpPacket(Object sock, DatagramPacket p, boolean send) {
        TState s = st();
        if (s == null || p == null) return;
        s.busy = true;
        try {
            SocketAddress local = ((java.net.DatagramSocket) sock).getLocalSocketAddress();
            ByteBuffer b = ByteBuffer.wrap(p.getData(), p.getOffset(), p.getLength());
            long c = crc(b, b.position(), b.limit());
            if (send) {
                udp(s, "SND", local, p.getSocketAddress(), c, p.getLength());
            } else {
                realRecvStart(s);
                udp(s, "RCV", p.getSocketAddress(), local, c, p.getLength());
            }
        } finally { s.busy = false; }
    }
}
