package spider.agent;

import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.commons.AdviceAdapter;

/** Instruments the included classes and the JDK's hooks (JdkHooks). */
final class Transformer implements ClassFileTransformer {
    static final String RT = "spider/agent/Rt";
    private static volatile boolean warned;

    @Override
    public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                            ProtectionDomain pd, byte[] bytes) {
        if (name == null || name.startsWith("spider/agent/") || name.startsWith("org/objectweb/asm/"))
            return null;
        try {
            if (name.startsWith("java/") || name.startsWith("sun/"))
                return JdkHooks.CLASSES.contains(name) ? JdkHooks.transform(name, bytes) : null;
            if (name.startsWith("jdk/"))
                return null;
            String dotted = name.replace('/', '.');
            if (!Agent.included(dotted) || dotted.endsWith("module-info") || dotted.endsWith("package-info"))
                return null;
            return instrument(loader, name, dotted, bytes);
        } catch (Throwable t) {
            if (!warned) {
                warned = true;
                System.err.println("spider-agent: cannot instrument " + name + " (left as it is): " + t);
            }
            return null;
        }
    }

    /** Runs every path of the transformer once, on a class of its own. */
    static void warmUp() {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("spider/agent/Sample.class")) {
            byte[] b = in.readAllBytes();
            instrument(null, "spider/agent/Sample", "spider.agent.Sample", b);
            JdkHooks.transform("java/lang/Thread", b);
            isA("java/util/Queue", java.util.Queue.class);
        } catch (Exception e) {
            System.err.println("spider-agent: warm-up failed: " + e);
        }
        // the runtime's classes (Rt's helpers), loaded and initialized
        // now, as Rt is, rather than by the first traced call
        for (Class<?> c : new Class<?>[] {Events.class, Events.TState.class, Volatiles.class,
                                          Locking.class, InFlight.class, TaskState.class,
                                          TaskState.Wrap.class, Net.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
        }
        Json.esc("x");
    }

    // ------------------------------------------------------------------ fields

    /** What a class declares, read from its class file without loading it. */
    static final class CInfo {
        String superName;
        String[] interfaces;
        final Map<String, Integer> fields = new HashMap<>();
    }

    private static final ConcurrentHashMap<String, CInfo> infos = new ConcurrentHashMap<>();

    static CInfo info(ClassLoader loader, String name, byte[] bytes) {
        CInfo ci = infos.get(name);
        if (ci != null) return ci;
        try {
            if (bytes == null) {
                InputStream in = loader != null ? loader.getResourceAsStream(name + ".class")
                                                : ClassLoader.getSystemResourceAsStream(name + ".class");
                if (in == null) return null;
                try (in) { bytes = in.readAllBytes(); }
            }
            ClassReader cr = new ClassReader(bytes);
            CInfo c = new CInfo();
            c.superName = cr.getSuperName();
            c.interfaces = cr.getInterfaces();
            cr.accept(new ClassVisitor(Opcodes.ASM9) {
                @Override
                public FieldVisitor visitField(int acc, String n, String d, String s, Object v) {
                    c.fields.put(n, acc);
                    return null;
                }
            }, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
            infos.put(name, c);
            return c;
        } catch (Exception e) {
            return null;
        }
    }

    /** {declaring class, access} of field owner.name, or null when not found. */
    static Object[] resolve(ClassLoader loader, String owner, String field) {
        String c = owner;
        for (int guard = 0; c != null && guard < 64; guard++) {
            CInfo ci = info(loader, c, null);
            if (ci == null) return null;
            Integer acc = ci.fields.get(field);
            if (acc != null) return new Object[] {c, acc};
            if (ci.interfaces != null)
                for (String i : ci.interfaces) {
                    Object[] r = resolve(loader, i, field);
                    if (r != null) return r;
                }
            c = ci.superName;
        }
        return null;
    }

    // ------------------------------------------------------------------ classes

    private static byte[] instrument(ClassLoader loader, String name, String dotted, byte[] bytes) {
        ClassReader cr = new ClassReader(bytes);
        info(loader, name, bytes);
        int version = cr.readUnsignedShort(6);
        if ((cr.getAccess() & Opcodes.ACC_MODULE) != 0) return null;
        // A blocking queue of the program's own is a hand-off, as the JDK's
        // are: its callers' puts and takes are the messages, and its inside
        // (a lock, a condition, its fields) is left alone as the JDK's is.
        // Traced, its sections and a WAIT per take made every election's
        // queue in ZooKeeper a matching problem that Z3 did not finish.
        if (isA(loader, name, java.util.concurrent.BlockingQueue.class)) return null;
        // first line of each method: where HANDLERBEGIN and a synchronized method's LOCK are
        Map<String, Integer> firstLine = new HashMap<>();
        cr.accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int acc, String n, String d, String s, String[] e) {
                String key = n + d;
                return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitLineNumber(int line, Label start) {
                        Integer f = firstLine.get(key);
                        if (f == null || line < f) firstLine.put(key, line);
                    }
                };
            }
        }, ClassReader.SKIP_FRAMES);
        ClassWriter cw = new ClassWriter(cr, ClassWriter.COMPUTE_MAXS);
        cr.accept(new ClassVisitor(Opcodes.ASM9, cw) {
            @Override
            public MethodVisitor visitMethod(int acc, String n, String d, String s, String[] e) {
                MethodVisitor mv = super.visitMethod(acc, n, d, s, e);
                if ((acc & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) return mv;
                Integer fl = firstLine.get(n + d);
                return new Method(mv, acc, n, d, loader, name, dotted, fl == null ? 0 : fl, version >= 50);
            }
        }, ClassReader.EXPAND_FRAMES);
        return cw.toByteArray();
    }

    // ------------------------------------------------------------------ methods

    private static final ConcurrentHashMap<String, Class<?>> jdkTypes = new ConcurrentHashMap<>();

    /** Whether owner (internal name) is assignable to c, a JDK type: a
     *  JDK type itself, or a class of the program whose superclasses and
     *  interfaces (read from loader's class files, not loaded) reach one
     *  that is (ZooKeeper's own CircularBlockingQueue is a BlockingQueue). */
    static boolean isA(ClassLoader loader, String owner, Class<?> c) {
        return isA(loader, owner, c, 0);
    }

    private static boolean isA(ClassLoader loader, String owner, Class<?> c, int depth) {
        if (owner == null || depth > 32) return false;
        if (owner.startsWith("java/")) return isA(owner, c);
        CInfo ci = info(loader, owner, null);
        if (ci == null) return false;
        if (ci.interfaces != null)
            for (String i : ci.interfaces)
                if (isA(loader, i, c, depth + 1)) return true;
        return isA(loader, ci.superName, c, depth + 1);
    }

    /** Whether owner (internal name) is a JDK type assignable to c. */
    static boolean isA(String owner, Class<?> c) {
        if (!owner.startsWith("java/")) return false;
        Class<?> k = jdkTypes.get(owner);
        if (k == null) {
            try {
                k = Class.forName(owner.replace('/', '.'), false, null);
            } catch (Throwable t) {
                k = Void.class;
            }
            jdkTypes.put(owner, k);
        }
        return c.isAssignableFrom(k);
    }

    static final class Method extends AdviceAdapter {
        final ClassLoader loader;
        final String owner, dotted, name;
        final boolean ctor, sync, isStatic, handler, frames;
        final int firstLine;
        int line;
        boolean entered;       // constructors: after super(...) / this(...)
        final boolean clinit;
        Label tryStart;

        Method(MethodVisitor mv, int acc, String name, String desc, ClassLoader loader,
               String owner, String dotted, int firstLine, boolean frames) {
            super(Opcodes.ASM9, mv, acc, name, desc);
            this.loader = loader;
            this.owner = owner;
            this.dotted = dotted;
            this.name = name;
            this.ctor = name.equals("<init>");
            this.sync = (acc & Opcodes.ACC_SYNCHRONIZED) != 0;
            this.isStatic = (acc & Opcodes.ACC_STATIC) != 0;
            this.handler = !ctor && !name.equals("<clinit>") && Agent.isHandler(dotted, name);
            this.firstLine = firstLine;
            this.line = firstLine;
            this.frames = frames;
            // class initialisation happens before every use of the class
            // in other threads (JLS 12.4.2): <clinit>'s field accesses are
            // not traced (its calls are: a lock's newCondition(), ...)
            this.clinit = name.equals("<clinit>");
            this.entered = !ctor;
        }

        String loc() {
            return Json.esc(dotted + "." + name + "." + line);
        }

        String entryLoc() {
            return Json.esc(dotted + "." + name + "." + firstLine);
        }

        private void rt(String m, String desc) {
            super.visitMethodInsn(Opcodes.INVOKESTATIC, RT, m, desc, false);
        }

        private void pushLockObject() {
            if (isStatic) super.visitLdcInsn(Type.getObjectType(owner));
            else super.visitVarInsn(Opcodes.ALOAD, 0);
        }

        @Override
        public void visitLineNumber(int l, Label start) {
            line = l;
            super.visitLineNumber(l, start);
        }

        @Override
        protected void onMethodEnter() {
            entered = true;
            if (sync) {
                pushLockObject();
                super.visitLdcInsn(entryLoc());
                rt("lock", "(Ljava/lang/Object;Ljava/lang/String;)V");
            }
            if (handler) {
                super.visitLdcInsn(entryLoc());
                rt("hbegin", "(Ljava/lang/String;)V");
            }
            if (sync || handler) {
                tryStart = new Label();
                super.visitLabel(tryStart);
            }
        }

        private void exitCode() {
            if (handler) {
                super.visitLdcInsn(loc());
                rt("hend", "(Ljava/lang/String;)V");
            }
            if (sync) {
                pushLockObject();
                super.visitLdcInsn(loc());
                rt("unlock", "(Ljava/lang/Object;Ljava/lang/String;)V");
            }
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode != Opcodes.ATHROW && tryStart != null) exitCode();
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            if (tryStart != null) {
                // an exception leaving the method: HANDLEREND / UNLOCK, then rethrow
                Label end = new Label(), h = new Label();
                super.visitLabel(end);
                super.visitTryCatchBlock(tryStart, end, h, null);
                super.visitLabel(h);
                if (frames) {
                    Object[] locals = isStatic ? new Object[0] : new Object[] {owner};
                    super.visitFrame(Opcodes.F_NEW, locals.length, locals, 1,
                                     new Object[] {"java/lang/Throwable"});
                }
                exitCode();
                super.visitInsn(Opcodes.ATHROW);
            }
            super.visitMaxs(maxStack, maxLocals);
        }

        @Override
        public void visitInsn(int op) {
            if (entered && op == Opcodes.MONITORENTER) {
                super.visitInsn(Opcodes.DUP);
                super.visitInsn(op);
                super.visitLdcInsn(loc());
                rt("lock", "(Ljava/lang/Object;Ljava/lang/String;)V");
                return;
            }
            if (entered && op == Opcodes.MONITOREXIT) {
                super.visitInsn(Opcodes.DUP);
                super.visitLdcInsn(loc());
                rt("unlock", "(Ljava/lang/Object;Ljava/lang/String;)V");
                super.visitInsn(op);
                return;
            }
            super.visitInsn(op);
        }

        @Override
        public void visitFieldInsn(int op, String fowner, String fname, String fdesc) {
            if (!entered || clinit || fowner.startsWith("spider/agent/")) {
                super.visitFieldInsn(op, fowner, fname, fdesc);
                return;
            }
            Object[] r = resolve(loader, fowner, fname);
            String decl = r == null ? fowner : (String) r[0];
            int acc = r == null ? 0 : (Integer) r[1];
            if ((acc & Opcodes.ACC_FINAL) != 0 || (acc & Opcodes.ACC_SYNTHETIC) != 0) {
                super.visitFieldInsn(op, fowner, fname, fdesc);
                return;
            }
            boolean vol = (acc & Opcodes.ACC_VOLATILE) != 0;
            String var = Json.esc(decl.replace('/', '.') + "." + fname);
            String l = loc();
            String objDesc = "(Ljava/lang/Object;Ljava/lang/String;Ljava/lang/String;)V";
            String stDesc = "(Ljava/lang/String;Ljava/lang/String;)V";
            if (vol && (op == Opcodes.GETFIELD || op == Opcodes.GETSTATIC)) {
                volatileRead(op, fowner, fname, fdesc, var, l,
                             op == Opcodes.GETSTATIC ? stDesc : objDesc);
                return;
            }
            switch (op) {
            case Opcodes.GETFIELD:
                super.visitInsn(Opcodes.DUP);
                super.visitLdcInsn(var);
                super.visitLdcInsn(l);
                rt("r", objDesc);
                break;
            case Opcodes.PUTFIELD:
                if (Type.getType(fdesc).getSize() == 2) {
                    super.visitInsn(Opcodes.DUP2_X1);
                    super.visitInsn(Opcodes.POP2);
                    super.visitInsn(Opcodes.DUP_X2);
                } else {
                    super.visitInsn(Opcodes.DUP2);
                    super.visitInsn(Opcodes.POP);
                }
                super.visitLdcInsn(var);
                super.visitLdcInsn(l);
                rt(vol ? "vw" : "w", objDesc);
                break;
            case Opcodes.GETSTATIC:
                super.visitLdcInsn(var);
                super.visitLdcInsn(l);
                rt("rs", stDesc);
                break;
            case Opcodes.PUTSTATIC:
                super.visitLdcInsn(var);
                super.visitLdcInsn(l);
                rt(vol ? "vws" : "ws", stDesc);
                break;
            default:
                break;
            }
            super.visitFieldInsn(op, fowner, fname, fdesc);
        }

        /** A volatile read, recorded after it reads: the writer records
         *  before it writes (Volatiles.volatileWrite), so a read that sees the
         *  new value finds the write's message.  Recorded before the read,
         *  a write in between went unseen and the reader unordered. */
        private void volatileRead(int op, String fowner, String fname, String fdesc,
                                  String var, String l, String hookDesc) {
            boolean wide = Type.getType(fdesc).getSize() == 2;
            if (op == Opcodes.GETSTATIC) {
                super.visitFieldInsn(op, fowner, fname, fdesc);
                super.visitLdcInsn(var);
                super.visitLdcInsn(l);
                rt("vrs", hookDesc);
                return;
            }
            // [o] -> [o, o] -> getfield -> [o, v] -> [v, o] -> Rt.vr(o, var, loc) -> [v]
            super.visitInsn(Opcodes.DUP);
            super.visitFieldInsn(op, fowner, fname, fdesc);
            if (wide) {
                super.visitInsn(Opcodes.DUP2_X1);
                super.visitInsn(Opcodes.POP2);
            } else {
                super.visitInsn(Opcodes.SWAP);
            }
            super.visitLdcInsn(var);
            super.visitLdcInsn(l);
            rt("vr", hookDesc);
        }

        /** The call replaced by Rt.m(RECV, args..., loc). */
        private void replace(String m, String recv, String desc) {
            super.visitLdcInsn(loc());
            Type t = Type.getMethodType(desc);
            StringBuilder b = new StringBuilder("(").append(recv);
            for (Type a : t.getArgumentTypes()) b.append(a.getDescriptor());
            b.append("Ljava/lang/String;)").append(t.getReturnType().getDescriptor());
            rt(m, b.toString());
        }

        private void call(int op, String o, String n, String d, boolean itf) {
            super.visitMethodInsn(op, o, n, d, itf);
        }

        static final String OBJ = "Ljava/lang/Object;";

        @Override
        public void visitMethodInsn(int op, String o, String n, String d, boolean itf) {
            if (!entered || o.startsWith("spider/agent/") || !callSite(op, o, n, d, itf))
                super.visitMethodInsn(op, o, n, d, itf);
        }

        private boolean callSite(int op, String o, String n, String d, boolean itf) {
            if (op == Opcodes.INVOKESTATIC) {
                if (!o.equals("java/util/concurrent/CompletableFuture")) return false;
                switch (n + d) {
                case "runAsync(Ljava/lang/Runnable;)Ljava/util/concurrent/CompletableFuture;":
                    super.visitLdcInsn(loc()); rt("runAsync", "(Ljava/lang/Runnable;Ljava/lang/String;)Ljava/util/concurrent/CompletableFuture;"); return true;
                case "runAsync(Ljava/lang/Runnable;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;":
                    super.visitLdcInsn(loc()); rt("runAsyncE", "(Ljava/lang/Runnable;Ljava/util/concurrent/Executor;Ljava/lang/String;)Ljava/util/concurrent/CompletableFuture;"); return true;
                case "supplyAsync(Ljava/util/function/Supplier;)Ljava/util/concurrent/CompletableFuture;":
                    super.visitLdcInsn(loc()); rt("supplyAsync", "(Ljava/util/function/Supplier;Ljava/lang/String;)Ljava/util/concurrent/CompletableFuture;"); return true;
                case "supplyAsync(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;)Ljava/util/concurrent/CompletableFuture;":
                    super.visitLdcInsn(loc()); rt("supplyAsyncE", "(Ljava/util/function/Supplier;Ljava/util/concurrent/Executor;Ljava/lang/String;)Ljava/util/concurrent/CompletableFuture;"); return true;
                default: return false;
                }
            }
            if (op != Opcodes.INVOKEVIRTUAL && op != Opcodes.INVOKEINTERFACE) return false;
            // Object's monitor methods (final: whatever the owner)
            switch (n + d) {
            case "wait()V": replace("waitO", OBJ, d); return true;
            case "wait(J)V": replace("waitJ", OBJ, d); return true;
            case "wait(JI)V": replace("waitJI", OBJ, d); return true;
            case "notify()V": replace("notifyO", OBJ, d); return true;
            case "notifyAll()V": replace("notifyAllO", OBJ, d); return true;
            default: break;
            }
            // a program's own queue, lock or thread subclass is treated as
            // the JDK type it implements; its own executors and futures are
            // not (they wrap a JDK one, whose calls are seen already)
            boolean jdk = o.startsWith("java/");
            if (isA(loader, o, java.util.concurrent.locks.Lock.class)) {
                String L = "Ljava/util/concurrent/locks/Lock;";
                switch (n + d) {
                case "lock()V": replace("lockL", L, d); return true;
                case "lockInterruptibly()V": replace("lockIL", L, d); return true;
                case "tryLock()Z": replace("tryLockL", L, d); return true;
                case "tryLock(JLjava/util/concurrent/TimeUnit;)Z": replace("tryLockTL", L, d); return true;
                case "unlock()V": replace("unlockL", L, d); return true;
                case "newCondition()Ljava/util/concurrent/locks/Condition;":
                    super.visitInsn(DUP);
                    call(op, o, n, d, itf);
                    super.visitInsn(DUP_X1);
                    super.visitLdcInsn(loc());
                    rt("regCond", "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)V");
                    return true;
                default: return false;
                }
            }
            if (isA(loader, o, java.util.concurrent.locks.ReadWriteLock.class)
                && (n.equals("readLock") || n.equals("writeLock")) && d.startsWith("()")) {
                super.visitInsn(DUP);
                call(op, o, n, d, itf);
                super.visitInsn(DUP_X1);
                super.visitLdcInsn(loc());
                rt("regRW", "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)V");
                return true;
            }
            if (isA(loader, o, java.util.concurrent.locks.Condition.class)) {
                String C = "Ljava/util/concurrent/locks/Condition;";
                switch (n + d) {
                case "await()V": replace("condAwait", C, d); return true;
                case "await(JLjava/util/concurrent/TimeUnit;)Z": replace("condAwaitT", C, d); return true;
                case "awaitNanos(J)J": replace("condAwaitNanos", C, d); return true;
                case "awaitUninterruptibly()V": replace("condAwaitU", C, d); return true;
                case "signal()V": replace("condSignal", C, d); return true;
                case "signalAll()V": replace("condSignalAll", C, d); return true;
                default: return false;
                }
            }
            if (isA(loader, o, java.util.Queue.class)) {
                if (d.equals("(Ljava/lang/Object;)V") || d.equals("(Ljava/lang/Object;)Z")) {
                    switch (n) {
                    case "put": case "offer": case "add": case "addFirst": case "addLast":
                    case "offerFirst": case "offerLast": case "putFirst": case "putLast": case "push":
                        super.visitInsn(DUP2);
                        super.visitLdcInsn(loc());
                        rt("qsnd", "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)V");
                        call(op, o, n, d, itf);
                        return true;
                    default: break;
                    }
                }
                if (d.equals("()Ljava/lang/Object;")) {
                    switch (n) {
                    case "take": case "poll": case "remove": case "takeFirst": case "takeLast":
                    case "pollFirst": case "pollLast": case "removeFirst": case "removeLast": case "pop":
                    case "peek": case "peekFirst": case "peekLast": case "element": case "getFirst": case "getLast":
                        // [q] -> [q, q] -> call -> [q, e] -> [e, q, e] -> Rt.qrcv/qpeek(q, e, loc) -> [e]
                        super.visitInsn(DUP);
                        call(op, o, n, d, itf);
                        super.visitInsn(DUP_X1);
                        super.visitLdcInsn(loc());
                        boolean peek = n.startsWith("peek") || n.equals("element") || n.startsWith("get");
                        rt(peek ? "qpeek" : "qrcv", "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)V");
                        return true;
                    default: break;
                    }
                }
                if (isA(loader, o, java.util.concurrent.BlockingDeque.class)) {
                    String D = "Ljava/util/concurrent/BlockingDeque;";
                    switch (n + d) {
                    case "pollFirst(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;": replace("qpollFirstT", D, d); return true;
                    case "pollLast(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;": replace("qpollLastT", D, d); return true;
                    default: break;
                    }
                }
                if (d.equals("(Ljava/lang/Object;)Z") && n.equals("remove")) {
                    replace("qremove", "Ljava/util/Collection;", d);
                    return true;
                }
                if (d.equals("(Ljava/lang/Object;)Z") && n.equals("removeFirstOccurrence") && isA(loader, o, java.util.Deque.class)) {
                    replace("qremoveFO", "Ljava/util/Deque;", d);
                    return true;
                }
                if (isA(loader, o, java.util.concurrent.BlockingQueue.class)) {
                    String Q = "Ljava/util/concurrent/BlockingQueue;";
                    switch (n + d) {
                    case "offer(Ljava/lang/Object;JLjava/util/concurrent/TimeUnit;)Z": replace("qofferT", Q, d); return true;
                    case "drainTo(Ljava/util/Collection;)I": replace("drain", Q, d); return true;
                    case "drainTo(Ljava/util/Collection;I)I": replace("drainN", Q, d); return true;
                    case "poll(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;": replace("qpollT", Q, d); return true;
                    default: return false;
                    }
                }
                return false;
            }
            if (jdk && isA(loader, o, java.util.concurrent.ScheduledExecutorService.class)) {
                String S = "Ljava/util/concurrent/ScheduledExecutorService;";
                switch (n + d) {
                case "schedule(Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;":
                    replace("schedR", S, d); return true;
                case "schedule(Ljava/util/concurrent/Callable;JLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;":
                    replace("schedC", S, d); return true;
                case "scheduleAtFixedRate(Ljava/lang/Runnable;JJLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;":
                    replace("schedRate", S, d); return true;
                case "scheduleWithFixedDelay(Ljava/lang/Runnable;JJLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/ScheduledFuture;":
                    replace("schedDelay", S, d); return true;
                default: break;
                }
            }
            if (jdk && isA(loader, o, java.util.concurrent.Executor.class)) {
                switch (n + d) {
                case "execute(Ljava/lang/Runnable;)V":
                    super.visitLdcInsn(loc());
                    rt("wrapR", "(Ljava/lang/Runnable;Ljava/lang/String;)Ljava/lang/Runnable;");
                    call(op, o, n, d, itf);
                    return true;
                case "submit(Ljava/lang/Runnable;)Ljava/util/concurrent/Future;":
                case "submit(Ljava/util/concurrent/Callable;)Ljava/util/concurrent/Future;":
                    super.visitLdcInsn(loc());
                    if (d.startsWith("(Ljava/lang/Runnable;"))
                        rt("wrapR", "(Ljava/lang/Runnable;Ljava/lang/String;)Ljava/lang/Runnable;");
                    else
                        rt("wrapC", "(Ljava/util/concurrent/Callable;Ljava/lang/String;)Ljava/util/concurrent/Callable;");
                    call(op, o, n, d, itf);
                    super.visitInsn(DUP);
                    super.visitLdcInsn(loc());
                    rt("bindF", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    return true;
                default: return false;
                }
            }
            if (jdk && isA(loader, o, java.util.concurrent.Future.class)) {
                switch (n + d) {
                case "get()Ljava/lang/Object;":
                case "join()Ljava/lang/Object;":
                    super.visitInsn(DUP);
                    call(op, o, n, d, itf);
                    super.visitInsn(SWAP);
                    super.visitLdcInsn(loc());
                    rt("fget", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    return true;
                case "get(JLjava/util/concurrent/TimeUnit;)Ljava/lang/Object;":
                    replace("fgetT", "Ljava/util/concurrent/Future;", d);
                    return true;
                case "complete(Ljava/lang/Object;)Z":
                    super.visitInsn(DUP2);
                    super.visitInsn(POP);
                    super.visitLdcInsn(loc());
                    rt("fcomplete", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    call(op, o, n, d, itf);
                    return true;
                default: return false;
                }
            }
            if (o.equals("java/util/concurrent/CountDownLatch")) {
                switch (n + d) {
                case "countDown()V":
                    super.visitInsn(DUP);
                    super.visitLdcInsn(loc());
                    rt("cdown", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    call(op, o, n, d, itf);
                    return true;
                case "await()V":
                    super.visitInsn(DUP);
                    call(op, o, n, d, itf);
                    super.visitLdcInsn(loc());
                    rt("cawait", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    return true;
                case "await(JLjava/util/concurrent/TimeUnit;)Z":
                    replace("cawaitT", "Ljava/util/concurrent/CountDownLatch;", d);
                    return true;
                default: return false;
                }
            }
            if (isA(loader, o, Thread.class)) {
                switch (n + d) {
                case "join()V":
                    super.visitInsn(DUP);
                    call(op, o, n, d, itf);
                    super.visitLdcInsn(loc());
                    rt("joined", "(Ljava/lang/Object;Ljava/lang/String;)V");
                    return true;
                case "join(J)V":
                    replace("joinJ", "Ljava/lang/Thread;", d);
                    return true;
                default: return false;
                }
            }
            return false;
        }
    }
}
