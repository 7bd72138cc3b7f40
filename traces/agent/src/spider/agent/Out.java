package spider.agent;

import java.io.FileOutputStream;
import java.io.IOException;

/**
 * The trace file: one JSON object a line, appended whole under one lock
 * into a buffer that goes to the file when it is half full, every flush
 * period (a daemon thread), and at JVM exit (a shutdown hook).  From the
 * exit on, each line goes to the file at once: threads still run while
 * the JVM shuts down, and a send they record then must reach the file
 * (a stream write's SND, recorded before the write, before its bytes
 * reach another node; an NIO channel write's, recorded after it, can
 * still be lost to the halt).  A JVM killed with SIGKILL loses at most the last
 * period's events; a line is never written in two pieces except by a
 * write the kernel cuts.  The file is never closed: the process's exit
 * closes it.
 */
final class Out {
    private final FileOutputStream file;
    private byte[] buf = new byte[1 << 20];
    private int n;
    private boolean writeThrough;
    private boolean failed;
    long events;

    Out(String path) throws IOException {
        file = new FileOutputStream(path, false);
    }

    /** Appends one line (without its newline), encoded as UTF-8. */
    synchronized void line(CharSequence s) {
        int len = s.length();
        if (n + 3 * len + 1 > buf.length) {
            flushLocked();
            if (3 * len + 1 > buf.length)
                buf = new byte[3 * len + 1];
        }
        byte[] b = buf;
        int k = n;
        for (int i = 0; i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                b[k++] = (byte) c;
            } else if (c < 0x800) {
                b[k++] = (byte) (0xc0 | (c >> 6));
                b[k++] = (byte) (0x80 | (c & 0x3f));
            } else if (Character.isHighSurrogate(c) && i + 1 < len
                       && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                b[k++] = (byte) (0xf0 | (cp >> 18));
                b[k++] = (byte) (0x80 | ((cp >> 12) & 0x3f));
                b[k++] = (byte) (0x80 | ((cp >> 6) & 0x3f));
                b[k++] = (byte) (0x80 | (cp & 0x3f));
            } else {
                if (Character.isSurrogate(c))
                    c = '?';
                b[k++] = (byte) (0xe0 | (c >> 12));
                b[k++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                b[k++] = (byte) (0x80 | (c & 0x3f));
            }
        }
        b[k++] = '\n';
        n = k;
        events++;
        if (writeThrough || n > buf.length / 2)
            flushLocked();
    }

    synchronized void flush() {
        flushLocked();
    }

    private void flushLocked() {
        if (n == 0 || failed)
            return;
        try {
            file.write(buf, 0, n);
        } catch (IOException e) {
            failed = true;
            System.err.println("spider-agent: cannot write the trace: " + e);
        }
        n = 0;
    }

    /** At JVM exit: what is buffered, and from now on each line at once. */
    synchronized void writeThrough() {
        flushLocked();
        writeThrough = true;
    }
}
