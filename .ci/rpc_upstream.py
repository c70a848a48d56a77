"""An RPC server for the live phase of CI, served by connectrpc (PyPI), which nobody here wrote.

connectrpc's WSGI application speaks Connect (unary POST and GET, streams), gRPC-Web and gRPC;
gunicorn serves it over HTTP/1.1 on 127.0.0.1:

    gunicorn --chdir .ci --bind 127.0.0.1:PORT --worker-class gthread --threads 8 rpc_upstream:app

No generated code: the messages stay bytes (a codec named "proto" that passes them through), and
the two methods read and write the few protobuf fields they use by hand.

cassette.v1.Greeter/Greet (unary, no side effects, so Connect GET works too):
    request  { 1: name }  ->  { 1: "Hello, NAME!" }; the name "fail" fails `unavailable`,
    "try again".
cassette.v1.Greeter/Count (server stream):
    request  { 1: name, 2: count }  ->  count messages { 1: "NAME I", 2: I }, 0.1 s apart; the
    name "fail" ends the stream with `resource_exhausted`, "stopped after COUNT" after them.
"""

import time

from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectWSGIApplication, EndpointSync

SERVICE = "cassette.v1.Greeter"
GAP = 0.1


def varint(number):
    out = bytearray()
    while True:
        byte = number & 0x7F
        number >>= 7
        if number:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def text_field(number, text):
    data = text.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def varint_field(number, value):
    return varint(number << 3) + varint(value)


def fields(message):
    """{number: value} of the varint and length-delimited fields of `message` (the last wins)."""
    found, index = {}, 0
    while index < len(message):
        key, index = read_varint(message, index)
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            found[number], index = read_varint(message, index)
        elif wire_type == 2:
            length, index = read_varint(message, index)
            found[number] = bytes(message[index:index + length])
            index += length
        else:
            raise ConnectError(Code.INVALID_ARGUMENT, f"wire type {wire_type} is not read here")
    return found


def read_varint(data, index):
    number, shift = 0, 0
    while True:
        byte = data[index]
        index += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return number, index


class PassThroughCodec:
    """Messages as bytes: the methods read and write the wire format themselves."""

    def name(self):
        return "proto"

    def encode(self, message):
        return bytes(message)

    def decode(self, data, message_class):
        return bytes(data)


def greet(request, context):
    name = fields(request).get(1, b"").decode()
    if name == "fail":
        raise ConnectError(Code.UNAVAILABLE, "try again")
    return text_field(1, f"Hello, {name}!")


def count(request, context):
    found = fields(request)
    name = found.get(1, b"").decode()
    total = found.get(2, 0)
    for index in range(total):
        if index:
            time.sleep(GAP)
        yield text_field(1, f"{name} {index}") + varint_field(2, index)
    if name == "fail":
        raise ConnectError(Code.RESOURCE_EXHAUSTED, f"stopped after {total}")


def method(name, stream_type, idempotency):
    return MethodInfo(
        name=name, service_name=SERVICE, input=bytes, output=bytes, idempotency_level=idempotency, stream_type=stream_type
    )


class Greeter(ConnectWSGIApplication):
    @property
    def path(self):
        return "/" + SERVICE

    def __init__(self):
        super().__init__(
            endpoints={
                f"/{SERVICE}/Greet": EndpointSync.unary(
                    method=method("Greet", StreamType.UNARY, IdempotencyLevel.NO_SIDE_EFFECTS), function=greet
                ),
                f"/{SERVICE}/Count": EndpointSync.server_stream(
                    method=method("Count", StreamType.SERVER_STREAM, IdempotencyLevel.UNKNOWN), function=count
                ),
            },
            codecs=[PassThroughCodec()],
            compressions=[],
        )


app = Greeter()
