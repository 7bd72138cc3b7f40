"""Writes the hostile-input corpus of tests/t0070-bad.sh: one trace per
file and its expected exit status and message in expected.txt.  The files
are checked in; rerun this only to change the corpus."""
import os

E = '{"thread":"a@n","type":"START"}\n'
cases = []  # (name, bytes, status, message substring)


def case(name, data, status, msg):
    if isinstance(data, str):
        data = data.encode()
    cases.append((name, data, status, msg))


ev = lambda fields: '{"thread":"a@n",%s}\n' % fields
# a node that crashed mid-write and was restarted, appending to the same
# file: the cut object is malformed (not a truncated tail), named by its line
case("cut-object-mid-file", E.replace("a@n", "main@n1") + '{"thread":"main@n1","type":"W",\n'
     + '{"thread":"main@n1","type":"W","variable":"x","loc":"a.b.1"}\n', 2,
     "cut-object-mid-file.log:2:1: malformed object: it is cut off before the next object (line 3, column 1)")
case("cut-object-glued", E.rstrip("\n") + '{"thread":"a@n","ty' + ev('"type":"END"'), 2,
     "cut-object-glued.log:1:32: malformed object: it is cut off before the next object (line 1, column 51)")
case("invalid-json", E + '{"thread": oops}\n', 2, "invalid-json.log:2:12: invalid JSON")
case("unquoted-key", E + '{thread:"a@n"}\n', 2, "unquoted-key.log:2:")
case("unknown-type-name", E + ev('"type":"JUMP"'), 2, 'unknown-type-name.log:2:1: unknown event type "JUMP"')
case("unknown-type-code", ev('"type":99'), 2, "unknown event type code 99")
case("type-zero", ev('"type":0'), 2, "unknown event type code 0")
case("type-fraction", ev('"type":6.5'), 2, "unknown event type code 6.5")
case("type-bool", ev('"type":true'), 2, 'field "type" must be a name or an integer code')
case("missing-type", '{"thread":"a@n"}\n', 2, 'missing-type.log:1:1: missing field "type"')
case("missing-thread", '{"type":"START"}\n', 2, 'missing field "thread"')
case("thread-number", '{"thread":5,"type":"START"}\n', 2, 'field "thread" must be a non-empty string')
case("thread-empty", '{"thread":"","type":"START"}\n', 2, 'field "thread" must be a non-empty string')
case("missing-variable-read", ev('"type":"R"'), 2, 'missing field "variable" (needed by R)')
case("missing-variable-lock", ev('"type":"LOCK"'), 2, 'missing field "variable" (needed by LOCK)')
case("missing-variable-wait", ev('"type":"WAIT"'), 2, 'missing field "variable" (needed by WAIT)')
case("missing-child-create", ev('"type":"CREATE"'), 2, 'missing field "child" (needed by CREATE)')
case("missing-child-join", ev('"type":4'), 2, 'missing field "child" (needed by JOIN)')
case("child-number", ev('"type":"CREATE","child":7'), 2, 'field "child" must be a non-empty string')
case("timestamp-fraction", ev('"type":"START","timestamp":1.5'), 2, 'field "timestamp" must be an integer')
case("timestamp-text", ev('"type":"START","timestamp":"soon"'), 2, 'field "timestamp" must be an integer')
case("size-text", ev('"type":"SND","message":1,"size":"big"'), 2, 'field "size" must be an integer')
case("size-negative", ev('"type":"SND","message":1,"size":-5'), 2, 'field "size" must not be negative')
case("loc-object", ev('"type":"START","loc":{}'), 2, 'field "loc" must be a string or a number')
case("variable-array", ev('"type":"W","variable":[1]'), 2, 'field "variable" must be a string or a number')
case("message-object", ev('"type":"SND","message":{"id":1}'), 2, 'field "message" must be a string or a number')
case("udp-send-without-message", ev('"type":"SND","socket_type":"UDP"'), 2, 'missing field "message" (needed by non-TCP SND)')
case("tcp-send-without-size", ev('"type":"SND","socket_type":"TCP","src":"x","src_port":1,"dst":"y","dst_port":2'), 2, 'missing field "size"')
case("tcp-receive-without-src", ev('"type":"RCV","socket_type":"TCP","size":3'), 2, 'missing field "src"')
case("socket-type-number", ev('"type":"SND","message":1,"socket_type":6'), 2, 'field "socket_type" must be a string')
case("bare-number", E + "42\n", 2, "bare-number.log:2:1: expected an event object")
case("bare-string", '"hello"\n', 2, "expected an event object")
case("array-of-numbers", "[1, 2]", 2, "array-of-numbers.log:1:2: expected an event object")
case("array-missing-comma", '[{"thread":"a","type":"START"} {"thread":"a","type":"END"}]', 2, "expected ',' or ']'")
case("array-trailing-text", '[{"thread":"a","type":"START"}] trailing', 2, "unexpected text after the array")
case("binary-with-nul", bytes(range(0, 64)) * 4, 2, "NUL byte")
case("binary-high-bytes", bytes(range(128, 256)) * 4, 2, "binary-high-bytes.log:1:1: expected an event object")
case("deep-nesting", '{"thread":"a@n","type":"START","data":' + "[" * 5000 + "]" * 5000 + "}\n", 2, "deep-nesting.log:1:")
case("empty-file", "", 2, "no events")
case("whitespace-only", "  \n\t\n  \n", 2, "no events")
case("empty-array", "[]\n", 2, "no events")
case("only-truncated-object", '{"thread":"a@n","ty', 2, "no events")
case("receive-before-send", ev('"type":"RCV","message":1,"loc":"A.rcv"') + ev('"type":"SND","message":1,"loc":"A.snd"'), 2, "inconsistent trace")
case("fork-cycle", '{"thread":"a@n","type":"CREATE","child":"b@n"}\n{"thread":"b@n","type":"CREATE","child":"a@n"}\n', 2, "inconsistent trace")
case("join-cycle", '{"thread":"a@n","type":"JOIN","child":"b@n"}\n{"thread":"b@n","type":"JOIN","child":"a@n"}\n', 2, "inconsistent trace")
case("locks-never-released", '{"thread":"a@n","type":"LOCK","variable":"l"}\n{"thread":"b@n","type":"LOCK","variable":"l"}\n', 2, "inconsistent trace")
case("wait-after-every-notify", '{"thread":"a@n","type":"WAIT","variable":"c","loc":"A.wait"}\n{"thread":"a@n","type":"SND","message":1,"loc":"A.snd"}\n'
     '{"thread":"b@n","type":"RCV","message":1,"loc":"B.rcv"}\n{"thread":"b@n","type":"NOTIFY","variable":"c","loc":"B.notify"}\n', 2, "inconsistent trace")
# two WAITs that only one NOTIFY can precede (the other comes after both,
# through a fork and a join): no matching of WAITs to NOTIFYs exists, and
# the error names the three (encode/encode_waits.c)
case("waits-share-one-notify", '{"thread":"p@n","type":"NOTIFY","variable":"c","loc":"P.notify"}\n'
     '{"thread":"x@n","type":"WAIT","variable":"c","loc":"X.wait"}\n{"thread":"y@n","type":"WAIT","variable":"c","loc":"Y.wait"}\n'
     '{"thread":"x@n","type":"CREATE","child":"q@n","loc":"X.fork"}\n{"thread":"q@n","type":"START","loc":"Q.start"}\n'
     '{"thread":"q@n","type":"JOIN","child":"y@n","loc":"Q.join"}\n{"thread":"q@n","type":"NOTIFY","variable":"c","loc":"Q.notify"}\n', 2,
     "waits-share-one-notify.log:3 WAIT Y.wait, tests/bad/waits-share-one-notify.log:2 WAIT X.wait, "
     "tests/bad/waits-share-one-notify.log:1 NOTIFY P.notify")
# accepted, with warnings or quietly
case("huge-string", ev('"type":"W","variable":"x","loc":"%s"' % ("L" * 2000000)), 0, "")
case("extra-fields", ev('"type":"START","counter":[1,{}],"pid":null,"data":{"a":[true]},"dependency":"x"'), 0, "")
case("utf8-bom", "\ufeff" + E, 0, "")
case("crlf-lines", E.replace("\n", "\r\n") * 2, 0, "")
case("truncated-last-line", E + ev('"type":"W","variable":"x"') + '{"thread":"a@n","type":"R","vari', 0, "truncated-last-line.log:3:1: last object is cut off")
case("truncated-nested-event", E + '{"thread":"a@n","data":{"type":"W","thread":"b@n"},"ty', 0,
     "truncated-nested-event.log:2:1: last object is cut off")
case("handler-end-alone", ev('"type":"HANDLEREND"') + E, 0, "HANDLEREND outside any handler")
case("unlock-alone", ev('"type":"UNLOCK","variable":"l"') + E, 0, "UNLOCK of a lock this thread does not hold")
case("handler-of-no-message", ev('"type":"HANDLERBEGIN"') + ev('"type":"HANDLEREND"'), 0, "a handler of no message")
case("handler-never-closed", '{"thread":"s@m","type":"SND","message":1}\n' + ev('"type":"RCV","message":1') + ev('"type":"HANDLERBEGIN"'), 0, "handler still open")
case("receive-without-send", ev('"type":"RCV","message":404'), 0, "1 receive has no send in the trace")
case("send-never-received", ev('"type":"SND","message":405'), 0, "1 send was never received")
case("lock-never-released", ev('"type":"LOCK","variable":"l"') + ev('"type":"W","variable":"x"'), 0, "lock-never-released.log:1: LOCK never released")
case("message-id-sent-twice", '{"thread":"s@m","type":"SND","message":1}\n{"thread":"s@m","type":"SND","message":1}\n' + ev('"type":"RCV","message":1'), 0, "")

with open("expected.txt", "w") as f:
    f.write("# name<TAB>exit status<TAB>what standard error must contain\n")
    for name, data, status, msg in cases:
        with open(name + ".log", "wb") as g:
            g.write(data)
        f.write("%s\t%d\t%s\n" % (name, status, msg))
print(len(cases), "cases")
