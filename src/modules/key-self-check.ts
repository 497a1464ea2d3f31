// The last check on a host key kiln assembled from its own arithmetic: OpenSSL signs with it and verifies with
// its public half, on the thread pool, before the key is written anywhere.
import { createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

const MESSAGE = Buffer.from('kiln host key check');

/** Fails unless PRIVATE signs a message that its public half verifies. */
export async function checkSignsAndVerifies(privateKey: KeyObject, what: string): Promise<void> {
  const signature = await new Promise<Buffer>((resolve, reject) => sign('sha256', MESSAGE, privateKey, (err, sig) => (err ? reject(err) : resolve(sig))));
  const verified = await new Promise<boolean>((resolve, reject) => verify('sha256', MESSAGE, createPublicKey(privateKey), signature, (err, ok) => (err ? reject(err) : resolve(ok))));
  if (!verified) throw new Error(`the assembled ${what} key does not verify its own signature`);
}
