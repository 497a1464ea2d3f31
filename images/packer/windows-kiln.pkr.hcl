# Bakes a Windows image whose first-boot agent is kiln as the cloudbase-init service: installs Windows from its
# ISO under qemu on a virtio disk and NIC, BIOS or UEFI (`firmware`); your Autounattend.xml on a floppy does the
# unattended setup, loading the virtio drivers from the virtio-win CD, and turns WinRM on (start from
# images/packer/autounattend/bios/ or uefi/, which match the firmware's partition layout). It installs
# kiln with `kiln-win-x64.exe install` over WinRM, and generalizes with sysprep and images/windows/Unattend.xml,
# whose specialize pass runs kiln; SetupComplete.cmd then starts the service at the first boot.
#
#   packer build -var windows_iso=Win2022.iso -var windows_iso_checksum=sha256:... -var virtio_win_iso=virtio-win.iso \
#     -var autounattend=Autounattend.xml -var winrm_password=... -var kiln_binary=dist/kiln-win-x64.exe [-var firmware=uefi] \
#     images/packer/windows-kiln.pkr.hcl
#
# Written for Packer 1.10 or later with the qemu plugin (`packer init` first). Not run with it here: only Debian's
# packer 1.6.6 can be installed, which rejects the packer block and predates the plugin's EFI arguments, so
# test/images/packer.test.ts runs `packer validate` with 1.6.6 on a copy without them and checks them apart.

packer {
  required_version = ">= 1.10.0"
  required_plugins {
    qemu = {
      source  = "github.com/hashicorp/qemu"
      version = ">= 1.1.0"
    }
  }
}

variable "windows_iso" {
  type        = string
  description = "Windows installation ISO (Server 2016 or later, or Windows 10/11): a local path or URL."
}

variable "windows_iso_checksum" {
  type        = string
  description = "Checksum of windows_iso as Packer takes it (sha256:… from the ISO's publisher): no default, so an image is never built from an unchecked ISO by accident; 'none' skips the check knowingly."
}

variable "autounattend" {
  type        = string
  description = "Autounattend.xml for Windows setup: it must create the WinRM user below, enable WinRM over HTTP, load the virtio drivers from the virtio-win CD and partition for the firmware chosen. Start from images/packer/autounattend/bios/ or uefi/ (set your edition and the build password there); put on a floppy, where setup looks for it."
}

variable "virtio_win_iso" {
  type        = string
  description = "The virtio-win driver ISO (virtio-win.iso from the Fedora project's virtio-win downloads), attached as a second CD: Autounattend's windowsPE pass loads the virtio disk and network drivers from it, which the VM's virtio disk and NIC need from setup on."
}

variable "firmware" {
  type        = string
  default     = "bios"
  description = "'bios' (SeaBIOS; the MBR layout of autounattend/bios) or 'uefi' (OVMF from efi_firmware_code and efi_firmware_vars; the GPT layout of autounattend/uefi). The image boots the same way wherever it runs."
}

variable "efi_firmware_code" {
  type        = string
  default     = "/usr/share/OVMF/OVMF_CODE_4M.fd"
  description = "OVMF's code for firmware = 'uefi' (Debian's ovmf package puts it here)."
}

variable "efi_firmware_vars" {
  type        = string
  default     = "/usr/share/OVMF/OVMF_VARS_4M.fd"
  description = "OVMF's variable store template for firmware = 'uefi' (Packer copies it beside the image)."
}

variable "winrm_username" {
  type        = string
  default     = "Administrator"
  description = "The administrator account autounattend creates, which Packer logs in as."
}

variable "winrm_password" {
  type        = string
  sensitive   = true
  description = "Its password, as autounattend sets it: a build-only one, since the account stays in the image."
}

variable "kiln_binary" {
  type        = string
  description = "The kiln Windows binary to install (dist/kiln-win-x64.exe from `npm run build`)."
}

variable "accelerator" {
  type        = string
  default     = "kvm"
  description = "qemu accelerator: 'kvm' where /dev/kvm works, 'tcg' (emulation, very slow for Windows) where it does not."
}

variable "disk_size" {
  type    = string
  default = "40G"
}

variable "output_directory" {
  type        = string
  default     = "output-windows-kiln"
  description = "Where Packer writes the finished qcow2."
}

locals {
  # cloudbase-init's folder, where `kiln install` puts kiln.exe and its confs.
  kiln_dir = "C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init"
  # Uploaded from this repository, so that the template generalizes with images/windows/Unattend.xml as it is.
  unattend = "${path.root}/../windows/Unattend.xml"
}

source "qemu" "windows-kiln" {
  iso_url      = var.windows_iso
  iso_checksum = var.windows_iso_checksum
  disk_size    = var.disk_size
  format       = "qcow2"
  # virtio disk and NIC, their drivers from the virtio-win CD (-cdrom: an argument of its own, so Packer's own
  # -drive list, the disk and the installation ISO, stays as it makes it).
  disk_interface = "virtio"
  net_device     = "virtio-net"
  qemuargs       = [["-cdrom", var.virtio_win_iso]]
  # UEFI when asked (the qemu plugin's EFI arguments: OVMF's code read-only, a copy of its variable store).
  efi_boot          = var.firmware == "uefi"
  efi_firmware_code = var.firmware == "uefi" ? var.efi_firmware_code : ""
  efi_firmware_vars = var.firmware == "uefi" ? var.efi_firmware_vars : ""
  accelerator       = var.accelerator
  memory            = 4096
  cpus              = 2
  headless          = true
  output_directory  = var.output_directory
  vm_name           = "windows-kiln.qcow2"

  floppy_files = [var.autounattend]

  communicator   = "winrm"
  winrm_username = var.winrm_username
  winrm_password = var.winrm_password
  winrm_timeout  = "4h"

  # sysprep generalizes and powers the VM off; its specialize pass (images/windows/Unattend.xml) runs kiln at
  # the first boot of each VM made from the image. Exit codes as in that file and docs/windows.md.
  shutdown_command = "C:\\Windows\\System32\\Sysprep\\sysprep.exe /generalize /oobe /shutdown /quiet \"/unattend:${local.kiln_dir}\\conf\\Unattend.xml\""
  shutdown_timeout = "1h"
}

build {
  sources = ["source.qemu.windows-kiln"]

  provisioner "file" {
    source      = var.kiln_binary
    destination = "C:\\Windows\\Temp\\kiln-win-x64.exe"
  }

  provisioner "file" {
    source      = local.unattend
    destination = "C:\\Windows\\Temp\\kiln-Unattend.xml"
  }

  # kiln install, Unattend.xml where sysprep's line looks for it: images/packer/scripts/install-kiln.ps1.
  provisioner "powershell" {
    environment_vars = ["KILN_DIR=${local.kiln_dir}"]
    script           = "${path.root}/scripts/install-kiln.ps1"
  }
}
