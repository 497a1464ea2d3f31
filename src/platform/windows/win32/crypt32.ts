// crypt32.dll bindings (with advapi32's CryptoAPI key calls): self-signed certificates in the LocalMachine certificate
// stores.
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';

export interface Crypt32 {
  /**
   * Makes an RSA 2048 key in a machine key container and a self-signed SHA-256 certificate for SUBJECT
   * ('CN=host'), valid from now for VALIDDAYS, added to LocalMachine\STORE; returns its SHA-1 thumbprint (hex, upper
   * case).
   */
  createSelfSignedCertificate(subject: string, opts: { store: string; container: string; validDays: number }): string;
  /**
   * Adds a DER certificate to LocalMachine\STORE; returns its thumbprint and its UPN (subject alternative name), ''
   * when none.
   */
  importCertificate(der: Uint8Array, store: string): { thumbprint: string; upn: string };
  /**
   * Imports a PKCS#12 (PFX) blob with its private keys in machine key containers (PFXImportCertStore): the
   * certificates that have a private key go to STORE, the others (the chain) to CA; their thumbprints.
   */
  importPfx(
    pfx: Uint8Array,
    password: string,
    store: string,
    machine: boolean,
  ): Array<{ thumbprint: string; store: string }>;
  /**
   * SHA-1 thumbprints of the certificates in LocalMachine\STORE, newest (latest NotBefore) first; [] when the store is
   * missing.
   */
  storeThumbprints(store: string): string[];
  /** The DER encoding of the certificate THUMBPRINT in LocalMachine\STORE; undefined when it is not there. */
  certificateDer(thumbprint: string, store: string): Uint8Array | undefined;
  /**
   * Decrypts a CMS/PKCS#7 EnvelopedData (DER) for one recipient with the exchange key of the machine key
   * CONTAINER (CryptMsgOpenToDecode, CryptMsgControl CMSG_CTRL_DECRYPT: what CryptDecryptMessage does, which
   * wine lacks); the content.
   */
  decryptEnvelopedMessage(cms: Uint8Array, container: string): Uint8Array;
  /**
   * Removes the certificate THUMBPRINT from LocalMachine\STORE and, when CONTAINER is given, that machine key
   * container; false when the certificate was not there.
   */
  deleteCertificate(thumbprint: string, store: string, container?: string): boolean;
}

const X509_ASN_ENCODING = 0x1;
const PKCS_7_ASN_ENCODING = 0x10000;
const CERT_X500_NAME_STR = 3;
const PROV_RSA_AES = 24;
const CRYPT_NEWKEYSET = 0x8;
const CRYPT_MACHINE_KEYSET = 0x20;
const AT_KEYEXCHANGE = 1;
const CRYPT_EXPORTABLE = 0x1;
const NTE_EXISTS = 0x8009000f;
const CERT_STORE_PROV_SYSTEM_W = 10;
const CERT_SYSTEM_STORE_LOCAL_MACHINE = 0x20000;
const CERT_SYSTEM_STORE_CURRENT_USER = 0x10000;
const CERT_STORE_OPEN_EXISTING_FLAG = 0x4000;
const CERT_STORE_READONLY_FLAG = 0x8000;
const CERT_STORE_ADD_REPLACE_EXISTING = 3;
const CERT_KEY_PROV_INFO_PROP_ID = 2;
const PKCS12_MACHINE_KEYSET = 0x20;
const PKCS12_USER_KEYSET = 0x1000;
const CERT_SHA1_HASH_PROP_ID = 3;
const SHA256_RSA_OID = '1.2.840.113549.1.1.11';

/** SYSTEMTIME for a Date, in UTC. */
function systemTime(d: Date): Record<string, number> {
  return {
    wYear: d.getUTCFullYear(),
    wMonth: d.getUTCMonth() + 1,
    wDayOfWeek: d.getUTCDay(),
    wDay: d.getUTCDate(),
    wHour: d.getUTCHours(),
    wMinute: d.getUTCMinutes(),
    wSecond: d.getUTCSeconds(),
    wMilliseconds: 0,
  };
}

export function bindCrypt32(koffi: Koffi, kernel32: Kernel32): Crypt32 {
  const lib = koffi.load('crypt32.dll');
  const adv = koffi.load('advapi32.dll');
  const structs = win32Structs(koffi);
  const {
    CRYPT_INTEGER_BLOB: BLOB,
    CRYPT_ALGORITHM_IDENTIFIER: ALGORITHM,
    CRYPT_KEY_PROV_INFO: KEY_PROV_INFO,
    SYSTEMTIME,
    CMSG_CTRL_DECRYPT_PARA: CTRL_DECRYPT_PARA,
  } = structs;
  /** CERT_CONTEXT's pCertInfo, pbCertEncoded and cbCertEncoded; CERT_INFO's NotBefore. */
  const CERT_CONTEXT_INFO = koffi.offsetof(structs.CERT_CONTEXT, 'pCertInfo');
  const CERT_CONTEXT_ENCODED = koffi.offsetof(structs.CERT_CONTEXT, 'pbCertEncoded');
  const CERT_CONTEXT_ENCODED_LENGTH = koffi.offsetof(structs.CERT_CONTEXT, 'cbCertEncoded');
  const CERT_INFO_NOT_BEFORE = koffi.offsetof(structs.CERT_INFO_HEAD, 'NotBefore');
  const U32_INOUT = koffi.inout(koffi.pointer('uint32_t'));
  const CertStrToNameW = lib.func('__stdcall', 'CertStrToNameW', 'int', [
    'uint32_t',
    'str16',
    'uint32_t',
    'void *',
    'void *',
    U32_INOUT,
    'void *',
  ]);
  const CertCreateSelfSignCertificate = lib.func('__stdcall', 'CertCreateSelfSignCertificate', 'void *', [
    'uintptr_t',
    koffi.pointer(BLOB),
    'uint32_t',
    koffi.pointer(KEY_PROV_INFO),
    koffi.pointer(ALGORITHM),
    koffi.pointer(SYSTEMTIME),
    koffi.pointer(SYSTEMTIME),
    'void *',
  ]);
  const CertOpenStore = lib.func('__stdcall', 'CertOpenStore', 'void *', [
    'uintptr_t',
    'uint32_t',
    'uintptr_t',
    'uint32_t',
    'str16',
  ]);
  const CertAddCertificateContextToStore = lib.func('__stdcall', 'CertAddCertificateContextToStore', 'int', [
    'void *',
    'void *',
    'uint32_t',
    'void *',
  ]);
  const CertGetCertificateContextProperty = lib.func('__stdcall', 'CertGetCertificateContextProperty', 'int', [
    'void *',
    'uint32_t',
    'void *',
    U32_INOUT,
  ]);
  const CertFreeCertificateContext = lib.func('__stdcall', 'CertFreeCertificateContext', 'int', ['void *']);
  const CertCloseStore = lib.func('__stdcall', 'CertCloseStore', 'int', ['void *', 'uint32_t']);
  const CryptAcquireContextW = adv.func('__stdcall', 'CryptAcquireContextW', 'int', [
    koffi.out(koffi.pointer('uintptr_t')),
    'str16',
    'str16',
    'uint32_t',
    'uint32_t',
  ]);
  const CryptGenKey = adv.func('__stdcall', 'CryptGenKey', 'int', [
    'uintptr_t',
    'uint32_t',
    'uint32_t',
    koffi.out(koffi.pointer('uintptr_t')),
  ]);
  const CryptDestroyKey = adv.func('__stdcall', 'CryptDestroyKey', 'int', ['uintptr_t']);
  const CryptReleaseContext = adv.func('__stdcall', 'CryptReleaseContext', 'int', ['uintptr_t', 'uint32_t']);

  const CertCreateCertificateContext = lib.func('__stdcall', 'CertCreateCertificateContext', 'void *', [
    'uint32_t',
    'void *',
    'uint32_t',
  ]);
  const CertGetNameStringW = lib.func('__stdcall', 'CertGetNameStringW', 'uint32_t', [
    'void *',
    'uint32_t',
    'uint32_t',
    'void *',
    'void *',
    'uint32_t',
  ]);
  const CERT_NAME_UPN_TYPE = 8;
  const PFXImportCertStore = lib.func('__stdcall', 'PFXImportCertStore', 'void *', [
    koffi.pointer(BLOB),
    'str16',
    'uint32_t',
  ]);
  const CertEnumCertificatesInStore = lib.func('__stdcall', 'CertEnumCertificatesInStore', 'void *', [
    'void *',
    'void *',
  ]);

  const CertFindCertificateInStore = lib.func('__stdcall', 'CertFindCertificateInStore', 'void *', [
    'void *',
    'uint32_t',
    'uint32_t',
    'uint32_t',
    koffi.pointer(BLOB),
    'void *',
  ]);
  const CertDeleteCertificateFromStore = lib.func('__stdcall', 'CertDeleteCertificateFromStore', 'int', ['void *']);
  const CertControlStore = lib.func('__stdcall', 'CertControlStore', 'int', [
    'void *',
    'uint32_t',
    'uint32_t',
    'void *',
  ]);
  const CERT_STORE_CTRL_COMMIT = 3;
  const CryptMsgOpenToDecode = lib.func('__stdcall', 'CryptMsgOpenToDecode', 'void *', [
    'uint32_t',
    'uint32_t',
    'uint32_t',
    'uintptr_t',
    'void *',
    'void *',
  ]);
  const CryptMsgUpdate = lib.func('__stdcall', 'CryptMsgUpdate', 'int', ['void *', 'void *', 'uint32_t', 'int']);
  const CryptMsgControl = lib.func('__stdcall', 'CryptMsgControl', 'int', [
    'void *',
    'uint32_t',
    'uint32_t',
    koffi.pointer(CTRL_DECRYPT_PARA),
  ]);
  const CryptMsgGetParam = lib.func('__stdcall', 'CryptMsgGetParam', 'int', [
    'void *',
    'uint32_t',
    'uint32_t',
    'void *',
    U32_INOUT,
  ]);
  const CryptMsgClose = lib.func('__stdcall', 'CryptMsgClose', 'int', ['void *']);
  /** 0: the type is read from the ContentInfo (openssl and Azure send a ContentInfo around the EnvelopedData). */
  const DETECT_MESSAGE_TYPE = 0;
  const CMSG_CTRL_DECRYPT = 2;
  const CMSG_CONTENT_PARAM = 2;
  const CERT_FIND_SHA1_HASH = 0x10000;
  const CRYPT_DELETEKEYSET = 0x10;

  const fail = (what: string) => new PlatformError(`${what} failed: ${kernel32.lastErrorText()}`);

  function thumbprintOf(cert: unknown): string {
    const hash = Buffer.alloc(20);
    const len = [20];
    if (!CertGetCertificateContextProperty(cert, CERT_SHA1_HASH_PROP_ID, hash, len))
      throw fail('CertGetCertificateContextProperty (SHA-1 thumbprint)');
    return hash
      .subarray(0, len[0] as number)
      .toString('hex')
      .toUpperCase();
  }

  function addToStore(cert: unknown, store: string, machine = true): void {
    const hStore = CertOpenStore(
      CERT_STORE_PROV_SYSTEM_W,
      X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
      0,
      machine ? CERT_SYSTEM_STORE_LOCAL_MACHINE : CERT_SYSTEM_STORE_CURRENT_USER,
      store,
    ) as unknown;
    if (!hStore) throw fail(`CertOpenStore ${machine ? 'LocalMachine' : 'CurrentUser'}\\${store}`);
    try {
      if (!CertAddCertificateContextToStore(hStore, cert, CERT_STORE_ADD_REPLACE_EXISTING, null))
        throw fail(`CertAddCertificateContextToStore LocalMachine\\${store}`);
    } finally {
      CertCloseStore(hStore, 0);
    }
  }

  /** Whether CERT carries a private key (a key provider property). */
  function hasPrivateKey(cert: unknown): boolean {
    const len = [0];
    return Boolean(CertGetCertificateContextProperty(cert, CERT_KEY_PROV_INFO_PROP_ID, null, len));
  }

  function openMachineStore(store: string, existing: boolean): unknown {
    return CertOpenStore(
      CERT_STORE_PROV_SYSTEM_W,
      X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
      0,
      CERT_SYSTEM_STORE_LOCAL_MACHINE | (existing ? CERT_STORE_OPEN_EXISTING_FLAG : 0),
      store,
    ) as unknown;
  }

  /** The certificate context THUMBPRINT in HSTORE (the caller frees it), or null. */
  function findByThumbprint(hStore: unknown, thumbprint: string): unknown {
    const hash = Buffer.from(thumbprint, 'hex');
    return CertFindCertificateInStore(
      hStore,
      X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
      0,
      CERT_FIND_SHA1_HASH,
      { cbData: hash.length, pbData: hash },
      null,
    ) as unknown;
  }

  return {
    certificateDer(thumbprint, store) {
      const hStore = openMachineStore(store, true);
      if (!hStore) return undefined;
      try {
        const cert = findByThumbprint(hStore, thumbprint);
        if (!cert) return undefined;
        try {
          const pb = koffi.decode(cert, CERT_CONTEXT_ENCODED, 'void *') as unknown;
          const cb = koffi.decode(cert, CERT_CONTEXT_ENCODED_LENGTH, 'uint32_t') as number;
          return Uint8Array.from(koffi.decode(pb, koffi.array('uint8_t', cb)) as ArrayLike<number>);
        } finally {
          CertFreeCertificateContext(cert);
        }
      } finally {
        CertCloseStore(hStore, 0);
      }
    },
    decryptEnvelopedMessage(cms, container) {
      const prov = [0];
      if (!CryptAcquireContextW(prov, container, null, PROV_RSA_AES, CRYPT_MACHINE_KEYSET))
        throw fail(`CryptAcquireContextW (machine key container '${container}')`);
      try {
        const msg = CryptMsgOpenToDecode(
          X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
          0,
          DETECT_MESSAGE_TYPE,
          0,
          null,
          null,
        ) as unknown;
        if (!msg) throw fail('CryptMsgOpenToDecode (enveloped data)');
        try {
          const blob = Buffer.from(cms);
          if (!CryptMsgUpdate(msg, blob, blob.length, 1)) throw fail('CryptMsgUpdate (not CMS enveloped data?)');
          // Azure addresses the envelope to the one transport certificate: recipient 0.
          if (
            !CryptMsgControl(msg, 0, CMSG_CTRL_DECRYPT, {
              cbSize: koffi.sizeof(CTRL_DECRYPT_PARA),
              hCryptProv: prov[0] as number,
              dwKeySpec: AT_KEYEXCHANGE,
              dwRecipientIndex: 0,
            })
          ) {
            throw fail('CryptMsgControl CMSG_CTRL_DECRYPT (not an envelope for this key?)');
          }
          const size = [0];
          if (!CryptMsgGetParam(msg, CMSG_CONTENT_PARAM, 0, null, size))
            throw fail('CryptMsgGetParam CMSG_CONTENT_PARAM');
          const out = Buffer.alloc(size[0] as number);
          if (!CryptMsgGetParam(msg, CMSG_CONTENT_PARAM, 0, out, size))
            throw fail('CryptMsgGetParam CMSG_CONTENT_PARAM');
          return new Uint8Array(out.subarray(0, size[0] as number));
        } finally {
          CryptMsgClose(msg);
        }
      } finally {
        CryptReleaseContext(prov[0] as number, 0);
      }
    },
    deleteCertificate(thumbprint, store, container) {
      let deleted = false;
      const hStore = openMachineStore(store, true);
      if (hStore) {
        try {
          const cert = findByThumbprint(hStore, thumbprint);
          // CertDeleteCertificateFromStore frees the context, whatever it returns.
          if (cert && !CertDeleteCertificateFromStore(cert)) throw fail(`CertDeleteCertificateFromStore ${thumbprint}`);
          deleted = Boolean(cert);
          // Written through to the registry now, not when the last context of the store goes (wine waits for that).
          if (deleted && !CertControlStore(hStore, 0, CERT_STORE_CTRL_COMMIT, null))
            throw fail(`CertControlStore commit LocalMachine\\${store}`);
        } finally {
          CertCloseStore(hStore, 0);
        }
      }
      if (container) {
        const prov = [0];
        if (!CryptAcquireContextW(prov, container, null, PROV_RSA_AES, CRYPT_DELETEKEYSET | CRYPT_MACHINE_KEYSET))
          throw fail(`CryptAcquireContextW (deleting the key container '${container}')`);
      }
      return deleted;
    },
    importPfx(pfx, password, store, machine) {
      const bytes = Buffer.from(pfx);
      // No password is NULL, as cloudbase-init passes None: CryptoAPI then tries the empty password both ways.
      const temp = PFXImportCertStore(
        { cbData: bytes.length, pbData: bytes },
        password === '' ? null : password,
        machine ? PKCS12_MACHINE_KEYSET : PKCS12_USER_KEYSET,
      ) as unknown;
      if (!temp) throw fail('PFXImportCertStore (not a PFX, or a wrong password?)');
      const out: Array<{ thumbprint: string; store: string }> = [];
      try {
        for (
          let cert = CertEnumCertificatesInStore(temp, null) as unknown;
          cert;
          cert = CertEnumCertificatesInStore(temp, cert) as unknown
        ) {
          const target = hasPrivateKey(cert) ? store : 'CA';
          addToStore(cert, target, machine);
          out.push({ thumbprint: thumbprintOf(cert), store: target });
        }
      } finally {
        CertCloseStore(temp, 0);
      }
      return out;
    },
    storeThumbprints(store) {
      const hStore = CertOpenStore(
        CERT_STORE_PROV_SYSTEM_W,
        X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
        0,
        CERT_SYSTEM_STORE_LOCAL_MACHINE | CERT_STORE_OPEN_EXISTING_FLAG | CERT_STORE_READONLY_FLAG,
        store,
      ) as unknown;
      if (!hStore) return [];
      const found: Array<{ thumbprint: string; notBefore: bigint }> = [];
      try {
        for (
          let cert = CertEnumCertificatesInStore(hStore, null) as unknown;
          cert;
          cert = CertEnumCertificatesInStore(hStore, cert) as unknown
        ) {
          const info = koffi.decode(cert, CERT_CONTEXT_INFO, 'void *') as unknown;
          const notBefore = koffi.decode(info, CERT_INFO_NOT_BEFORE, 'uint64_t') as bigint | number;
          found.push({ thumbprint: thumbprintOf(cert), notBefore: BigInt(notBefore) });
        }
      } finally {
        CertCloseStore(hStore, 0);
      }
      return found
        .sort((a, b) => (a.notBefore > b.notBefore ? -1 : a.notBefore < b.notBefore ? 1 : 0))
        .map((c) => c.thumbprint);
    },
    importCertificate(der, store) {
      const bytes = Buffer.from(der);
      const cert = CertCreateCertificateContext(
        X509_ASN_ENCODING | PKCS_7_ASN_ENCODING,
        bytes,
        bytes.length,
      ) as unknown;
      if (!cert) throw fail('CertCreateCertificateContext (not a DER X.509 certificate?)');
      try {
        addToStore(cert, store);
        const buf = Buffer.alloc(1024);
        const n = CertGetNameStringW(cert, CERT_NAME_UPN_TYPE, 0, null, buf, 512) as number;
        const upn = n > 1 ? buf.subarray(0, (n - 1) * 2).toString('utf16le') : '';
        return { thumbprint: thumbprintOf(cert), upn };
      } finally {
        CertFreeCertificateContext(cert);
      }
    },
    createSelfSignedCertificate(subject, { store, container, validDays }) {
      const size = [0];
      if (!CertStrToNameW(X509_ASN_ENCODING, subject, CERT_X500_NAME_STR, null, null, size, null))
        throw fail(`CertStrToNameW '${subject}'`);
      const name = Buffer.alloc(size[0] as number);
      if (!CertStrToNameW(X509_ASN_ENCODING, subject, CERT_X500_NAME_STR, null, name, size, null))
        throw fail(`CertStrToNameW '${subject}'`);
      const prov = [0];
      if (!CryptAcquireContextW(prov, container, null, PROV_RSA_AES, CRYPT_NEWKEYSET | CRYPT_MACHINE_KEYSET)) {
        if (
          kernel32.lastError() >>> 0 !== NTE_EXISTS ||
          !CryptAcquireContextW(prov, container, null, PROV_RSA_AES, CRYPT_MACHINE_KEYSET)
        ) {
          throw fail(`CryptAcquireContextW (machine key container '${container}')`);
        }
      }
      const key = [0];
      try {
        if (!CryptGenKey(prov[0] as number, AT_KEYEXCHANGE, (2048 << 16) | CRYPT_EXPORTABLE, key))
          throw fail('CryptGenKey (RSA 2048)');
        const start = new Date();
        const end = new Date(start.getTime() + validDays * 86_400_000);
        const cert = CertCreateSelfSignCertificate(
          prov[0] as number,
          { cbData: name.length, pbData: name },
          0,
          {
            pwszContainerName: container,
            pwszProvName: null,
            dwProvType: PROV_RSA_AES,
            dwFlags: CRYPT_MACHINE_KEYSET,
            cProvParam: 0,
            rgProvParam: null,
            dwKeySpec: AT_KEYEXCHANGE,
          },
          { pszObjId: SHA256_RSA_OID, Parameters: { cbData: 0, pbData: null } },
          systemTime(start),
          systemTime(end),
          null,
        ) as unknown;
        if (!cert) throw fail(`CertCreateSelfSignCertificate '${subject}'`);
        try {
          addToStore(cert, store);
          return thumbprintOf(cert);
        } finally {
          CertFreeCertificateContext(cert);
        }
      } finally {
        if (key[0]) CryptDestroyKey(key[0] as number);
        CryptReleaseContext(prov[0] as number, 0);
      }
    },
  };
}
