# Bakes a Windows image whose first-boot agent is kiln as the cloudbase-init service: installs Windows from its
# ISO under qemu (your Autounattend.xml on a floppy does the unattended setup and turns WinRM on), installs
# kiln with `kiln-win-x64.exe install` over WinRM, and generalizes with sysprep and images/windows/Unattend.xml,
# whose specialize pass runs kiln; SetupComplete.cmd then starts the service at the first boot.
#
#   packer build -var windows_iso=Win2022.iso -var autounattend=Autounattend.xml -var winrm_password=... -var kiln_binary=dist/kiln-win-x64.exe images/packer/windows-kiln.pkr.hcl
#
# Written for Packer 1.10 or later with the qemu plugin (`packer init` first). Not run with it here: only Debian's
# packer 1.6.6 can be installed, which rejects the packer block, so
# test/images/packer.test.ts runs `packer validate` with 1.6.6 on a copy without it and checks it apart.

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
  description = "Autounattend.xml for Windows setup (edition, product key, disk layout): it must create the WinRM user below and enable WinRM over HTTP. Edition-specific, hence yours; put on a floppy, where setup looks for it."
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
  # Devices Windows has drivers for out of the box, so setup needs no virtio driver disk.
  disk_interface   = "ide"
  net_device       = "e1000"
  accelerator      = var.accelerator
  memory           = 4096
  cpus             = 2
  headless         = true
  output_directory = var.output_directory
  vm_name          = "windows-kiln.qcow2"

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
