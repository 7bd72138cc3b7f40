package spider.agent;

import java.util.Set;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.commons.AdviceAdapter;

/**
 * The JDK methods every thread and socket goes through, instrumented by
 * retransformation (method bodies only) so that threads started and
 * sockets used by code that is not instrumented are traced too.
 */
final class JdkHooks {
    private JdkHooks() {}

    static final Set<String> CLASSES = Set.of(
        "java/lang/Thread",
        "java/net/Socket",
        "java/net/ServerSocket",
        "java/net/Socket$SocketInputStream",
        "java/net/Socket$SocketOutputStream",
        "sun/nio/ch/SocketChannelImpl",
        "sun/nio/ch/ServerSocketChannelImpl",
        "sun/nio/ch/DatagramChannelImpl",
        "sun/nio/ch/DatagramSocketAdaptor");

    static byte[] transform(String cls, byte[] bytes) {
        ClassReader cr = new ClassReader(bytes);
        ClassWriter cw = new ClassWriter(cr, ClassWriter.COMPUTE_MAXS);
        cr.accept(new ClassVisitor(Opcodes.ASM9, cw) {
            @Override
            public MethodVisitor visitMethod(int acc, String n, String d, String s, String[] e) {
                MethodVisitor mv = super.visitMethod(acc, n, d, s, e);
                if ((acc & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) return mv;
                String key = cls + "." + n + d;
                switch (key) {
                case "java/lang/Thread.start()V":
                case "java/lang/Thread.exit()V":
                case "java/net/Socket.connect(Ljava/net/SocketAddress;I)V":
                case "java/net/ServerSocket.accept()Ljava/net/Socket;":
                case "java/net/Socket$SocketOutputStream.write([BII)V":
                case "java/net/Socket$SocketOutputStream.write(I)V":
                case "java/net/Socket$SocketInputStream.read([BII)I":
                case "java/net/Socket$SocketInputStream.read()I":
                case "sun/nio/ch/SocketChannelImpl.write(Ljava/nio/ByteBuffer;)I":
                case "sun/nio/ch/SocketChannelImpl.read(Ljava/nio/ByteBuffer;)I":
                case "sun/nio/ch/SocketChannelImpl.write([Ljava/nio/ByteBuffer;II)J":
                case "sun/nio/ch/SocketChannelImpl.read([Ljava/nio/ByteBuffer;II)J":
                case "sun/nio/ch/SocketChannelImpl.connect(Ljava/net/SocketAddress;)Z":
                case "sun/nio/ch/SocketChannelImpl.finishConnect()Z":
                case "sun/nio/ch/ServerSocketChannelImpl.accept()Ljava/nio/channels/SocketChannel;":
                case "sun/nio/ch/DatagramChannelImpl.send(Ljava/nio/ByteBuffer;Ljava/net/SocketAddress;)I":
                case "sun/nio/ch/DatagramChannelImpl.receive(Ljava/nio/ByteBuffer;)Ljava/net/SocketAddress;":
                case "sun/nio/ch/DatagramSocketAdaptor.send(Ljava/net/DatagramPacket;)V":
                case "sun/nio/ch/DatagramSocketAdaptor.receive(Ljava/net/DatagramPacket;)V":
                    return new Hook(mv, acc, n, d, key);
                default:
                    return mv;
                }
            }
        }, ClassReader.EXPAND_FRAMES);
        return cw.toByteArray();
    }

    static final class Hook extends AdviceAdapter {
        final String key;

        Hook(MethodVisitor mv, int acc, String n, String d, String key) {
            super(Opcodes.ASM9, mv, acc, n, d);
            this.key = key;
        }

        private void rt(String m, String desc) {
            super.visitMethodInsn(INVOKESTATIC, Transformer.RT, m, desc, false);
        }

        private void parent(String cls) {
            super.visitVarInsn(ALOAD, 0);
            super.visitFieldInsn(GETFIELD, cls, "parent", "Ljava/net/Socket;");
        }

        @Override
        protected void onMethodEnter() {
            switch (key) {
            case "java/lang/Thread.start()V":
                super.visitVarInsn(ALOAD, 0);
                rt("tstart", "(Ljava/lang/Thread;)V");
                break;
            case "java/lang/Thread.exit()V":
                rt("texit", "()V");
                break;
            case "java/net/Socket$SocketOutputStream.write([BII)V":
                parent("java/net/Socket$SocketOutputStream");
                super.visitVarInsn(ILOAD, 3);
                rt("sockW", "(Ljava/net/Socket;I)V");
                break;
            case "java/net/Socket$SocketOutputStream.write(I)V":
                parent("java/net/Socket$SocketOutputStream");
                super.visitInsn(ICONST_1);
                rt("sockW", "(Ljava/net/Socket;I)V");
                break;
            case "sun/nio/ch/DatagramChannelImpl.send(Ljava/nio/ByteBuffer;Ljava/net/SocketAddress;)I":
                super.visitVarInsn(ALOAD, 1);
                super.visitVarInsn(ALOAD, 2);
                rt("udpSendPre", "(Ljava/nio/ByteBuffer;Ljava/net/SocketAddress;)V");
                break;
            case "sun/nio/ch/DatagramChannelImpl.receive(Ljava/nio/ByteBuffer;)Ljava/net/SocketAddress;":
                super.visitVarInsn(ALOAD, 1);
                rt("udpRecvPre", "(Ljava/nio/ByteBuffer;)V");
                break;
            case "sun/nio/ch/DatagramSocketAdaptor.send(Ljava/net/DatagramPacket;)V":
                super.visitVarInsn(ALOAD, 0);
                super.visitVarInsn(ALOAD, 1);
                super.visitInsn(ICONST_1);
                rt("udpPacket", "(Ljava/lang/Object;Ljava/net/DatagramPacket;Z)V");
                break;
            default:
                break;
            }
        }

        @Override
        protected void onMethodExit(int opcode) {
            if (opcode == ATHROW) return;
            switch (key) {
            case "java/net/Socket.connect(Ljava/net/SocketAddress;I)V":
                super.visitVarInsn(ALOAD, 0);
                rt("sockConnect", "(Ljava/net/Socket;)V");
                break;
            case "java/net/ServerSocket.accept()Ljava/net/Socket;":
            case "sun/nio/ch/ServerSocketChannelImpl.accept()Ljava/nio/channels/SocketChannel;":
                super.visitInsn(DUP);
                rt("sockAccept", "(Ljava/lang/Object;)V");
                break;
            case "java/net/Socket$SocketInputStream.read([BII)I":
                super.visitInsn(DUP);
                parent("java/net/Socket$SocketInputStream");
                super.visitInsn(SWAP);
                rt("sockR", "(Ljava/net/Socket;I)V");
                break;
            case "java/net/Socket$SocketInputStream.read()I":
                super.visitInsn(DUP);
                parent("java/net/Socket$SocketInputStream");
                super.visitInsn(SWAP);
                rt("sockR1", "(Ljava/net/Socket;I)V");
                break;
            case "sun/nio/ch/SocketChannelImpl.write(Ljava/nio/ByteBuffer;)I":
            case "sun/nio/ch/SocketChannelImpl.read(Ljava/nio/ByteBuffer;)I":
                super.visitInsn(DUP);
                super.visitVarInsn(ALOAD, 0);
                super.visitInsn(SWAP);
                rt(key.contains(".write(") ? "chW" : "chR", "(Ljava/lang/Object;I)V");
                break;
            case "sun/nio/ch/SocketChannelImpl.write([Ljava/nio/ByteBuffer;II)J":
            case "sun/nio/ch/SocketChannelImpl.read([Ljava/nio/ByteBuffer;II)J":
                super.visitInsn(DUP2);
                super.visitVarInsn(ALOAD, 0);
                super.visitInsn(DUP_X2);
                super.visitInsn(POP);
                rt(key.contains(".write(") ? "chWL" : "chRL", "(Ljava/lang/Object;J)V");
                break;
            case "sun/nio/ch/SocketChannelImpl.connect(Ljava/net/SocketAddress;)Z":
            case "sun/nio/ch/SocketChannelImpl.finishConnect()Z":
                super.visitInsn(DUP);
                super.visitVarInsn(ALOAD, 0);
                super.visitInsn(SWAP);
                rt("chConnect", "(Ljava/lang/Object;Z)V");
                break;
            case "sun/nio/ch/DatagramChannelImpl.send(Ljava/nio/ByteBuffer;Ljava/net/SocketAddress;)I":
                super.visitInsn(DUP);
                super.visitVarInsn(ALOAD, 0);
                super.visitInsn(SWAP);
                rt("udpSendPost", "(Ljava/lang/Object;I)V");
                break;
            case "sun/nio/ch/DatagramChannelImpl.receive(Ljava/nio/ByteBuffer;)Ljava/net/SocketAddress;":
                super.visitInsn(DUP);
                super.visitVarInsn(ALOAD, 0);
                super.visitVarInsn(ALOAD, 1);
                rt("udpRecvPost", "(Ljava/net/SocketAddress;Ljava/lang/Object;Ljava/nio/ByteBuffer;)V");
                break;
            case "sun/nio/ch/DatagramSocketAdaptor.receive(Ljava/net/DatagramPacket;)V":
                super.visitVarInsn(ALOAD, 0);
                super.visitVarInsn(ALOAD, 1);
                super.visitInsn(ICONST_0);
                rt("udpPacket", "(Ljava/lang/Object;Ljava/net/DatagramPacket;Z)V");
                break;
            default:
                break;
            }
        }
    }
}
