# Runs cloud-init 25.1's own AltCloud, RbxCloud or IBMCloud datasource (Debian 13's, in the parity rootfs) on media
# given as folders: only what touches the machine is replaced (mount, blkid, modprobe, udevadm, DMI, /sys, arping),
# each by the same facts the kiln side gets. Prints, as JSON, what the datasource made: get_data()'s result, the
# instance-data-sensitive.json it wrote, raw user and vendor data, the network config, its config and activate()'s
# arping commands.
import base64
import functools
import json
import os
import sys

from cloudinit import atomic_helper, distros, helpers, net, util

args = json.loads(sys.argv[1])
root = args["root"]  # the fake machine's files (cloud-info, /proc/xen, /etc/hosts …), as kiln's --root
drives = args["drives"]  # [{device, label, fsType, dir, uuid?}]
by_device = {d["device"]: d for d in drives}


def fake_mount_cb(device, callback, data=None, mtype=None, update_env_for_mount=None, log_error=True):
    """util.mount_cb: the drive's folder as the mount point; mount -t fails for a filesystem type not asked for."""
    drive = by_device.get(device)
    if drive is None:
        raise util.MountFailedError("Failed mounting %s: no such device" % device)
    types = [mtype] if isinstance(mtype, str) else list(mtype or ["auto"])
    if "auto" not in types and drive["fsType"] not in types:
        raise util.MountFailedError("Failed mounting %s: wrong fs type %s" % (device, drive["fsType"]))
    mountpoint = drive["dir"].rstrip("/") + "/"
    return callback(mountpoint) if data is None else callback(mountpoint, data)


def fake_find_devs_with(criteria=None, oformat="device", tag=None, no_cache=False, path=None):
    """blkid -t LABEL=… -o device: exact label match, in the drives' order."""
    key, _, value = (criteria or "").partition("=")
    field = {"LABEL": "label", "TYPE": "fsType", "UUID": "uuid"}[key]
    return [d["device"] for d in drives if d.get(field) == value]


def fake_blkid(devs=None, disable_cache=False):
    out = {}
    for d in drives:
        entry = {"DEVNAME": d["device"], "TYPE": d["fsType"], "LABEL": d["label"]}
        if d.get("uuid"):
            entry["UUID"] = d["uuid"]
        out[d["device"]] = entry
    return out


util.mount_cb = fake_mount_cb
util.find_devs_with = fake_find_devs_with
util.blkid = fake_blkid
util.udevadm_settle = lambda exists=None, timeout=None: None
macs = args.get("macs", {})
net.get_interfaces_by_mac = lambda *a, **k: {m: n for n, m in macs.items()}
arps = []

name = args["source"]
if name == "AltCloud":
    from cloudinit.sources import DataSourceAltCloud as M

    M.CLOUD_INFO_FILE = root + M.CLOUD_INFO_FILE
    # modprobe would load a module into the host's kernel: the floppy is the folder already.
    M.modprobe_floppy = lambda: None
    dmi = args.get("dmi", {})
    M.dmi.read_dmi_data = lambda key: dmi.get({"system-product-name": "product_name"}.get(key, key))
    cls = M.DataSourceAltCloud
elif name == "RbxCloud":
    from cloudinit.sources import DataSourceRbxCloud as M

    M.ETC_HOSTS = root + M.ETC_HOSTS
    M._sub_arp = lambda cmd: arps.append(["arping"] + cmd) or ("", "")
    cls = M.DataSourceRbxCloud
elif name == "IBMCloud":
    from cloudinit.sources import DataSourceIBMCloud as M

    M._is_xen = lambda: os.path.exists(root + "/proc/xen")
    M._is_ibm_provisioning = functools.partial(
        M._is_ibm_provisioning,
        prov_cfg=root + "/root/provisioningConfiguration.cfg",
        inst_log=root + "/root/swinstall.log",
        boot_ref=root + "/proc/1/environ",
    )
    # /sys/hypervisor/uuid of the fake machine (only check_instance_id reads it).
    M._read_system_uuid = lambda: util.load_text_file(root + "/sys/hypervisor/uuid").strip().lower() if os.path.isfile(root + "/sys/hypervisor/uuid") else None
    cls = M.DataSourceIBMCloud
else:
    raise SystemExit("unknown source " + name)

paths = helpers.Paths({"cloud_dir": args["out"] + "/var/lib/cloud", "run_dir": args["out"] + "/run/cloud-init"})
distro = distros.fetch(args.get("distro", "debian"))(args.get("distro", "debian"), {}, paths)
ds = cls(args.get("sys_cfg", {}), distro, paths)
try:
    ok = bool(ds.get_data())
    error = None
except Exception as e:  # cloud-init's find_source logs it and tries the next source
    ok, error = False, "%s: %s" % (type(e).__name__, e)


def b64(v):
    if v is None:
        return None
    return base64.b64encode(v if isinstance(v, bytes) else v.encode("utf-8")).decode()


result = {"ok": ok, "error": error}
if ok:
    doc_path = paths.get_runpath("instance_data_sensitive")
    result["instance_data"] = json.loads(util.load_text_file(doc_path)) if os.path.exists(doc_path) else None
    result["userdata_raw"] = b64(ds.get_userdata_raw())
    result["userdata_type"] = type(ds.get_userdata_raw()).__name__
    result["vendordata_raw"] = b64(ds.get_vendordata_raw())
    result["network_config"] = ds.network_config
    result["instance_id"] = ds.get_instance_id()
    result["public_keys"] = ds.get_public_ssh_keys()
    result["subplatform"] = ds.subplatform
    cfg = ds.get_config_obj()
    result["config"] = cfg
    # The datasource's config under the system's, as cloud-init's ConfigMerger merges them (the datasource's wins).
    result["merged"] = util.mergemanydict([cfg, args.get("system_cfg", {})])
    ds.activate(cfg={}, is_new_instance=True)
    result["arping"] = arps
print(atomic_helper.json_dumps(result))
