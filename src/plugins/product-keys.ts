// Microsoft's published generic product keys: KMS client setup keys (GVLKs) and AVMA keys, by Windows build and
// EditionID.

/** Windows Server builds: 2012 9200, 2012 R2 9600, 2016 14393, 2019 17763, 2022 20348, 2025 26100. */
const SERVER_KMS: Record<number, Record<string, string>> = {
  26100: {
    ServerStandard: 'TVRH6-WHNXV-R9WG3-9XRFY-MY832',
    ServerDatacenter: 'D764K-2NDRG-47T6Q-P8T8W-YP6DF',
    ServerTurbine: 'XGN3F-F394H-FD2MY-PP6FD-8MCRC',
  },
  20348: {
    ServerStandard: 'VDYBN-27WPP-V4HQT-9VMD4-VMK7H',
    ServerDatacenter: 'WX4NM-KYWYW-QJJR4-XV3QB-6VM33',
    ServerTurbine: 'NTBV8-9K7Q8-V27C6-M2BTV-KHMXV',
  },
  17763: {
    ServerStandard: 'N69G4-B89J2-4G8F4-WWYCC-J464C',
    ServerDatacenter: 'WMDGN-G9PQG-XVVXX-R3X43-63DFG',
    ServerSolution: 'WVDHN-86M7X-466P6-VHXV7-YY726',
  },
  14393: {
    ServerStandard: 'WC2BQ-8NRM3-FDDYY-2BFGV-KHKQY',
    ServerDatacenter: 'CB7KF-BWN84-R7R2Y-793K2-8XDDG',
    ServerSolution: 'JCKRF-N37P4-C2D82-9YXRT-4M63B',
  },
  9600: {
    ServerStandard: 'D2N9P-3P6X9-2R39C-7RTCD-MDVJX',
    ServerDatacenter: 'W3GGN-FT8W3-Y4M27-J84CP-Q3VJ9',
    ServerSolution: 'KNC87-3J2TX-XB4WP-VCPJV-M4FWM',
  },
  9200: {
    ServerStandard: 'XC9B7-NBPP2-83J2H-RHMBY-92BT4',
    ServerDatacenter: '48HP8-DN98B-MYWDG-T2DCC-8W83P',
    ServerSolution: 'HTDQM-NBMMG-KGYDT-2DTKT-J2MPV',
  },
};

const SERVER_AVMA: Record<number, Record<string, string>> = {
  20348: {
    ServerDatacenter: 'W3GNR-8DDXR-2TFRP-H8P33-DV9BG',
    ServerTurbine: 'F7TB6-YKN8Y-FCC6R-KQ484-VMK3J',
    ServerStandard: 'YDFWN-MJ9JR-3DYRK-FXXRW-78VHK',
  },
  17763: {
    ServerDatacenter: 'H3RNG-8C32Q-Q8FRX-6TDXV-WMBMW',
    ServerStandard: 'TNK62-RXVTB-4P47B-2D623-4GF74',
    ServerSolution: '2CTP7-NHT64-BP62M-FV6GG-HFV28',
  },
  14393: {
    ServerDatacenter: 'TMJ3Y-NTRTM-FJYXT-T22BY-CWG3J',
    ServerStandard: 'C3RCX-M6NRP-6CXC9-TW2F2-4RHYD',
    ServerSolution: 'B4YNW-62DX9-W8V6M-82649-MHBKQ',
  },
  9600: {
    ServerDatacenter: 'Y4TGP-NPTV9-HTC2H-7MGQ3-DV4TW',
    ServerStandard: 'DBGBW-NPF86-BJVTX-K3WKJ-MTB6V',
    ServerSolution: 'K2XGM-NMBT3-2R6Q8-WF2FK-P36R2',
  },
};

/** Windows 10 and 11 (build 10240 and later), the same key for both. */
const CLIENT_KMS: Record<string, string> = {
  Professional: 'W269N-WFGWX-YVC9B-4J6C9-T83GX',
  ProfessionalN: 'MH37W-N47XK-V7XM9-C7227-GCQG9',
  ProfessionalWorkstation: 'NRG8B-VKK3Q-CXVCJ-9G2XF-6Q84J',
  ProfessionalWorkstationN: '9FNHH-K3HBT-3W4TD-6383H-6XYWF',
  ProfessionalEducation: '6TP4R-GNPTD-KYYHQ-7B7DP-J447Y',
  ProfessionalEducationN: 'YVWGF-BXNMC-HTQYQ-CPQ99-66QFC',
  Education: 'NW6C2-QMPVW-D7KKK-3GKT6-VCFB2',
  EducationN: '2WH4N-8QGBV-H22JP-CT43Q-MDWWJ',
  Enterprise: 'NPPR9-FWDCX-D2C8J-H872K-2YT43',
  EnterpriseN: 'DPH2V-TTNVB-4X9Q3-TJR4H-KHJW4',
  EnterpriseG: 'YYVX9-NTFWV-6MDM3-9PT4T-4M68B',
  EnterpriseGN: '44RPN-FTY23-9VTTB-MP9BX-T84FV',
};

/**
 * Enterprise LTSB/LTSC (EditionID EnterpriseS / EnterpriseSN) by build: 2015 10240, 2016 14393, 2019 17763, 2021 19044,
 * 2024 26100.
 */
const CLIENT_LTSC_KMS: Record<number, { EnterpriseS: string; EnterpriseSN: string }> = {
  10240: { EnterpriseS: 'WNMTR-4C88C-JK8YV-HQ7T2-76DF9', EnterpriseSN: '2F77B-TNFGY-69QQF-B8YKP-D69TJ' },
  14393: { EnterpriseS: 'DCPHK-NFMTC-H88MJ-PFHPY-QJ4BJ', EnterpriseSN: 'QFFDN-GRT3P-VKWWX-X7T3R-8B639' },
  17763: { EnterpriseS: 'M7XTQ-FN8P6-TTKYV-9D4CC-J462D', EnterpriseSN: '92NFX-8DJQP-P6BBQ-THF9C-7CG2H' },
  19044: { EnterpriseS: 'M7XTQ-FN8P6-TTKYV-9D4CC-J462D', EnterpriseSN: '92NFX-8DJQP-P6BBQ-THF9C-7CG2H' },
  26100: { EnterpriseS: 'M7XTQ-FN8P6-TTKYV-9D4CC-J462D', EnterpriseSN: '92NFX-8DJQP-P6BBQ-THF9C-7CG2H' },
};

/**
 * The generic key for this Windows (build from CurrentBuildNumber, edition from EditionID); undefined when none is
 * published.
 */
export function genericProductKey(kind: 'kms' | 'avma', build: number, editionId: string): string | undefined {
  if (kind === 'avma') return SERVER_AVMA[build]?.[editionId];
  if (editionId.startsWith('Server')) return SERVER_KMS[build]?.[editionId];
  if (editionId === 'EnterpriseS' || editionId === 'EnterpriseSN') return CLIENT_LTSC_KMS[build]?.[editionId];
  return build >= 10240 ? CLIENT_KMS[editionId] : undefined;
}
