import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";

/** A google.rpc.RetryInfo detail asking to wait `seconds`, as the BFF passes it on. */
export function retryInfoDetail(seconds: number) {
  const duration = new BinaryWriter().tag(1, WireType.Varint).int64(seconds).finish();
  return { type: "google.rpc.RetryInfo", value: new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(duration).finish() };
}

/** A google.rpc.BadRequest detail listing field violations. */
export function badRequestDetail(violations: Array<{ field: string; description: string }>) {
  const writer = new BinaryWriter();
  for (const v of violations) {
    const violation = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string(v.field)
      .tag(2, WireType.LengthDelimited)
      .string(v.description)
      .finish();
    writer.tag(1, WireType.LengthDelimited).bytes(violation);
  }
  return { type: "google.rpc.BadRequest", value: writer.finish() };
}

/** A ConnectError carrying raw details, as a fake handler throws it. */
export function errorWithDetails(message: string, code: Code, ...details: Array<{ type: string; value: Uint8Array }>) {
  const error = new ConnectError(message, code);
  error.details.push(...details);
  return error;
}
