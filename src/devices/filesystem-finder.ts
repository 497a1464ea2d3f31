// The contract between datasources and the device readers: find a filesystem by label, read it as a tree.

/** The filesystems the readers understand, named as blkid names them. */
export type FilesystemType = 'iso9660' | 'vfat' | 'udf';

/** One entry of a directory inside a read-only filesystem image. */
export interface TreeEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink';
  size: number;
}

/** A read-only file tree (ISO9660, FAT, or a plain folder); paths are '/'-separated from its root. */
export interface FileTree {
  /** Undefined when the file does not exist; throws on a corrupt filesystem. */
  readFile(path: string): Promise<Uint8Array | undefined>;
  list(path: string): Promise<TreeEntry[] | undefined>;
  exists(path: string): Promise<boolean>;
}

export interface FoundFilesystem {
  /** '/dev/sr0', '/dev/vdb1', '\\\\.\\PhysicalDrive1 partition 2', 'D:\\', or an image file path. */
  device: string;
  fsType: FilesystemType;
  label: string;
  uuid?: string;
  tree: FileTree;
}

export interface FindRequest {
  /** Labels that match, compared as cloud-init compares them (cidata/CIDATA, config-2/CONFIG-2). */
  labels: string[];
  /** When set, only filesystems holding one of these files count (cloudbase-init checks the metadata file). */
  mustContain?: string[];
  fsTypes?: FilesystemType[];
  /**
   * Any label matches and `labels` only orders the results (cloud-init's Azure looks at every ISO 9660/UDF device,
   * OVF's environment ISO may carry any label).
   */
  anyLabel?: boolean;
  /**
   * Only block devices whose kernel name (`sr0`, `hda`, `xvdb`) matches are read, as cloud-init's
   * maybe_cdrom_device; Linux devices only (drive letters and image files are not filtered).
   */
  deviceName?: RegExp;
}

/** Implemented by src/devices for Linux (/sys/class/block) and Windows (drive letters, PhysicalDriveN). */
export interface FilesystemFinder {
  find(req: FindRequest): Promise<FoundFilesystem[]>;
}
