// SSH keys that ovf-env.xml names only by certificate fingerprint: fetched from the wireserver, decrypted and converted
// by the target's openssl and ssh-keygen.
import type { Platform } from '../../platform/platform';
import type { HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import { parseXml, type XmlElement } from '../../util/xml-reader';
import { SourceError } from '../source-error';
import { WIRESERVER_HEADERS } from './wireserver';

export interface CertificateKeyOptions {
  platform: Platform;
  client: HttpClient;
  log: Log;
  /** The goal state's Certificates URL. */
  url: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

function findData(el: XmlElement): string | undefined {
  if (el.local === 'Data') return el.text;
  for (const c of el.children) {
    const d = findData(c);
    if (d !== undefined) return d;
  }
  return undefined;
}

async function run(platform: Platform, cmd: string[], what: string, input?: string): Promise<string> {
  const r = await platform.run(cmd, {
    allowFailure: true,
    timeoutMs: 60_000,
    ...(input !== undefined ? { input } : {}),
  });
  if (r.code !== 0)
    throw new SourceError('Azure', `${what} failed (exit ${r.code}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
  return r.stdout;
}

/**
 * Fingerprint (SHA-1, upper-case hex without colons, as Azure writes it) → OpenSSH public key, for every
 * certificate the wireserver holds for this VM. As cloud-init: a transport certificate is made with openssl, sent
 * with the request, and used to decrypt the CMS envelope the certificates come in.
 */
export async function wireserverCertificateKeys(opts: CertificateKeyOptions): Promise<Map<string, string>> {
  const { platform } = opts;
  const dir = `/run/kiln-azure-certs-${process.pid}-${Date.now()}`;
  await platform.mkdir(dir, { mode: 0o700 });
  try {
    const key = `${dir}/TransportPrivate.pem`;
    const cert = `${dir}/TransportCert.pem`;
    await run(
      platform,
      [
        'openssl',
        'req',
        '-x509',
        '-nodes',
        '-subj',
        '/CN=LinuxTransport',
        '-days',
        '32768',
        '-newkey',
        'rsa:2048',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      'openssl req (the transport certificate)',
    );
    const pem = await platform.readText(cert);
    const body = pem
      .split('\n')
      .filter((l) => !l.includes('CERTIFICATE'))
      .map((l) => l.trim())
      .join('');
    const res = await opts.client.fetch(opts.url, {
      headers: { ...WIRESERVER_HEADERS, 'x-ms-cipher-name': 'DES_EDE3_CBC', 'x-ms-guest-agent-public-x509-cert': body },
      timeoutMs: opts.timeoutMs,
      retries: 3,
      maxRedirects: 0,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const data = findData(parseXml(res.text(), opts.url));
    if (!data) throw new SourceError('Azure', `${opts.url}: the certificates document has no Data element`);
    // openssl's base64 reader wants short lines: the body is re-wrapped at 64 characters.
    const smime = [
      'MIME-Version: 1.0',
      'Content-Disposition: attachment; filename="Certificates.p7m"',
      'Content-Type: application/x-pkcs7-mime; name="Certificates.p7m"',
      'Content-Transfer-Encoding: base64',
      '',
      ...(data.replace(/\s+/g, '').match(/.{1,64}/g) ?? []),
      '',
    ].join('\n');
    // Files, not /dev/stdin: a command's standard input may be a socket, which /dev/stdin cannot be opened on.
    const p7m = `${dir}/Certificates.p7m`;
    await platform.writeFile(p7m, smime, { mode: 0o600 });
    const bundle = await run(
      platform,
      [
        'sh',
        '-c',
        `openssl cms -decrypt -in ${p7m} -inkey ${key} -recip ${cert} | openssl pkcs12 -nodes -password pass:`,
      ],
      'openssl cms -decrypt | openssl pkcs12',
    );
    const keys = new Map<string, string>();
    for (const m of bundle.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)) {
      const certificate = `${m[0]}\n`;
      const fp = (
        await run(
          platform,
          ['openssl', 'x509', '-noout', '-fingerprint', '-sha1'],
          'openssl x509 -fingerprint',
          certificate,
        )
      ).trim();
      const pub = `${dir}/pubkey.pem`;
      await platform.writeFile(
        pub,
        await run(platform, ['openssl', 'x509', '-noout', '-pubkey'], 'openssl x509 -pubkey', certificate),
        { mode: 0o600 },
      );
      const ssh = (
        await run(platform, ['ssh-keygen', '-i', '-m', 'PKCS8', '-f', pub], 'ssh-keygen -i -m PKCS8')
      ).trim();
      keys.set(
        fp
          .slice(fp.indexOf('=') + 1)
          .replace(/:/g, '')
          .toUpperCase(),
        ssh,
      );
    }
    opts.log.debug(`Azure: ${keys.size} certificate(s) from the wireserver`);
    return keys;
  } finally {
    await platform.remove(dir, { recursive: true }).catch(() => undefined);
  }
}
