package spider.agent;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * spider's Java agent: java -javaagent:spider-agent.jar=OPTIONS ...
 * writes one trace of this JVM in the format spider reads.
 */
public final class Agent {
    private Agent() {}

    static final String HELP =
        "spider-agent: traces a JVM for spider (one JSON trace file per JVM)\n"
      + "usage: java -javaagent:spider-agent.jar=OPTION,OPTION,... MAIN\n"
      + "  include=P1:P2:...   instrument the classes of these packages or classes\n"
      + "                      (prefixes of dotted names, e.g. org.apache.zookeeper)\n"
      + "  exclude=P1:P2:...   but not these (prefixes)\n"
      + "  handlers=C.m:C.n    message handlers: HANDLERBEGIN/HANDLEREND around every\n"
      + "                      call of these methods (dotted class name, method name)\n"
      + "  out=PATH            the trace file; %n is the node, %p the pid; a directory\n"
      + "                      (existing, or ending in /) gets NODE.json in it\n"
      + "                      (default: spider-%n.json in the working directory)\n"
      + "  node=NAME           the node name (default: HOST:PID)\n"
      + "  volatile=order|skip order: a volatile write is a NOTIFYALL, a read of it\n"
      + "                      a WAIT after it (default); skip: not traced\n"
      + "  flush=MS            write the buffer out at least every MS ms (default 200)\n"
      + "  help                print this and exit\n";

    static List<String> include = new ArrayList<>();
    static List<String> exclude = new ArrayList<>();
    static List<String> handlers = new ArrayList<>();

    private static void bad(String msg) {
        System.err.println("spider-agent: " + msg);
        System.err.print(HELP);
        System.err.flush();
        Runtime.getRuntime().halt(2);
    }

    private static List<String> list(String v) {
        List<String> l = new ArrayList<>();
        for (String x : v.split(":"))
            if (!x.isEmpty()) l.add(x.replace('/', '.'));
        return l;
    }

    public static void premain(String args, Instrumentation inst) {
        String out = "spider-%n.json", node = null;
        long flush = 200;
        if (args != null && !args.isEmpty()) {
            for (String opt : args.split(",")) {
                if (opt.isEmpty()) continue;
                int eq = opt.indexOf('=');
                String k = eq < 0 ? opt : opt.substring(0, eq);
                String v = eq < 0 ? null : opt.substring(eq + 1);
                if (k.equals("help")) {
                    System.out.print(HELP);
                    System.out.flush();
                    Runtime.getRuntime().halt(0);
                }
                if (v == null)
                    bad("option '" + k + "' needs a value (" + k + "=...)");
                switch (k) {
                case "include": include.addAll(list(v)); break;
                case "exclude": exclude.addAll(list(v)); break;
                case "handlers":
                    for (String h : list(v)) {
                        if (h.lastIndexOf('.') <= 0)
                            bad("option 'handlers': '" + h + "' is not Class.method");
                        handlers.add(h);
                    }
                    break;
                case "out": out = v; break;
                case "node":
                    if (v.isEmpty()) bad("option 'node' must not be empty");
                    node = v;
                    break;
                case "volatile":
                    if (v.equals("order")) Rt.volatileOrder = true;
                    else if (v.equals("skip")) Rt.volatileOrder = false;
                    else bad("option 'volatile': '" + v + "' is not order or skip");
                    break;
                case "flush":
                    try {
                        flush = Long.parseLong(v);
                        if (flush <= 0) throw new NumberFormatException();
                    } catch (NumberFormatException e) {
                        bad("option 'flush': '" + v + "' is not a positive number of milliseconds");
                    }
                    break;
                default:
                    bad("unknown option '" + k + "'");
                }
            }
        }
        if (include.isEmpty())
            System.err.println("spider-agent: no include= option: no class of the program is instrumented"
                               + " (threads and sockets only)");
        long pid = ProcessHandle.current().pid();
        if (node == null) {
            String host;
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (Exception e) {
                host = "localhost";
            }
            node = host + ":" + pid;
        }
        String safe = node.replaceAll("[^A-Za-z0-9._-]", "_");
        File f = new File(out);
        if (out.endsWith("/") || f.isDirectory()) {
            f.mkdirs();
            f = new File(f, safe + ".json");
        } else {
            f = new File(out.replace("%n", safe).replace("%p", Long.toString(pid)));
        }
        if (Agent.class.getClassLoader() != null)
            bad("the agent's classes must be on the boot class path (the jar's Boot-Class-Path)");
        try {
            Rt.out = new Out(f.getPath());
        } catch (Exception e) {
            bad("option 'out': cannot write " + f + ": " + e.getMessage());
        }
        Rt.node = node;
        Rt.haveHandlers = !handlers.isEmpty();
        // the JDK's classes call the agent's, which are in the boot loader's unnamed module
        inst.redefineModule(Object.class.getModule(), Set.of(Agent.class.getModule()),
                            Map.of(), Map.of(), Set.of(), Map.of());
        Transformer t = new Transformer();
        // load what transforming needs (ASM, the hooks) before the
        // transformer is installed: it must not be asked about its own classes
        Transformer.warmUp();
        inst.addTransformer(t, true);
        List<Class<?>> jdk = new ArrayList<>();
        for (String n : JdkHooks.CLASSES) {
            try {
                jdk.add(Class.forName(n.replace('/', '.'), false, null));
            } catch (ClassNotFoundException e) {
                System.err.println("spider-agent: no class " + n + " in this JDK: not traced");
            }
        }
        try {
            inst.retransformClasses(jdk.toArray(new Class<?>[0]));
        } catch (Exception e) {
            System.err.println("spider-agent: cannot instrument the JDK's threads and sockets: " + e);
        }
        final Out o = Rt.out;
        final long period = flush;
        Thread flusher = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(period);
                } catch (InterruptedException e) {
                    return;
                }
                o.flush();
            }
        }, "spider-agent-flush");
        flusher.setDaemon(true);
        flusher.start();
        Runtime.getRuntime().addShutdownHook(new Thread(o::writeThrough, "spider-agent-exit"));
        Rt.ready = true;
    }

    static boolean included(String dotted) {
        if (dotted.startsWith("spider.agent.")) return false;
        boolean in = false;
        for (String p : include)
            if (dotted.startsWith(p)) { in = true; break; }
        if (!in) return false;
        for (String p : exclude)
            if (dotted.startsWith(p)) return false;
        return true;
    }

    static boolean isHandler(String dotted, String method) {
        if (handlers.isEmpty()) return false;
        return handlers.contains(dotted + "." + method);
    }

    static String describe() {
        return Arrays.toString(include.toArray());
    }
}
