// The cloud-init release whose behaviour kiln's modules reproduce (and which file headers name for tooling).
export const KILN_CLOUD_INIT_VERSION = '22.4.2';
