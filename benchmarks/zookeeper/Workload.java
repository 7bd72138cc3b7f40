import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The client of benchmarks/zookeeper/run: java Workload CONNECT N [PAUSE]
 * creates N znodes under /spider, sets, reads and deletes them (with a
 * watch on each: the servers send the client watch events), retrying an
 * operation that the ensemble refuses while it elects a leader.  With
 * PAUSE it then writes the file PAUSE.paused, waits for PAUSE.go (the run
 * script stops the leader meanwhile and waits for a new one) and does it
 * all again on other znodes, in the same session.
 */
@SuppressWarnings("unchecked")
public class Workload {
    interface Op { Object run() throws Exception; }

    static Object retry(Op op) throws Exception {
        for (int i = 0; ; i++) {
            try {
                return op.run();
            } catch (KeeperException.ConnectionLossException | KeeperException.SessionMovedException e) {
                if (i > 200) throw e;
                Thread.sleep(100);
            } catch (KeeperException.NodeExistsException | KeeperException.NoNodeException e) {
                return null; // an earlier try went through before the connection was lost
            }
        }
    }

    public static void main(String[] a) throws Exception {
        String connect = a[0];
        int n = Integer.parseInt(a[1]);
        String pause = a.length > 2 ? a[2] : null;
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(connect, 20000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) connected.countDown();
        });
        if (!connected.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no connection");
        retry(() -> zk.create("/spider", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        phase(zk, "a", n);
        if (pause != null) {
            // the run script stops the leader now and lets the others elect one
            java.nio.file.Files.writeString(java.nio.file.Path.of(pause + ".paused"), "");
            java.nio.file.Path go = java.nio.file.Path.of(pause + ".go");
            while (!java.nio.file.Files.exists(go)) Thread.sleep(50);
            phase(zk, "b", n);
        }
        zk.close();
    }

    static void phase(ZooKeeper zk, String phase, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            String p = "/spider/" + phase + "-" + i;
            retry(() -> zk.create(p, ("v" + p).getBytes(), ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        }
        for (int i = 0; i < n; i++) {
            String p = "/spider/" + phase + "-" + i;
            retry(() -> zk.exists(p, true));
            retry(() -> zk.setData(p, ("w" + p).getBytes(), -1));
            retry(() -> zk.getData(p, false, new Stat()));
        }
        List<String> kids = (List<String>) retry(() -> zk.getChildren("/spider", false));
        for (int i = 0; i < n; i++) {
            String p = "/spider/" + phase + "-" + i;
            retry(() -> { zk.delete(p, -1); return null; });
        }
        System.out.println("workload " + phase + ": " + n + " znodes created, set, read, deleted ("
                           + (kids == null ? 0 : kids.size()) + " children seen)");
    }
}
