// Runs until it is killed (tests/t0200-agent.sh sends SIGKILL): what the
// agent had written out by then must be a trace spider reads.  Not a
// planted-race program (no //! lines): it is not given to check.py.
public class Killed {
    static int x;
    static final Object L = new Object();

    static void loop() {
        try {
            while (true) {
                synchronized (L) {
                    x++;
                }
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            return;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread t = new Thread(Killed::loop);
        t.setDaemon(true);
        t.start();
        while (true) {
            synchronized (L) {
                x--;
            }
            Thread.sleep(1);
        }
    }
}
