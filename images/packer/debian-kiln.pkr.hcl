# Bakes a Debian bookworm image whose first-boot agent is kiln: boots Debian's cloud image under qemu with a
# NoCloud seed that lets Packer in, installs kiln over the image's cloud-init package (`kiln install --replace`),
# reboots once so that kiln itself boots the image, checks that boot, and cleans up for capture.
#
#   packer init images/packer/debian-kiln.pkr.hcl    # once: fetches the qemu plugin the packer block names
#   packer build -var debian_image=debian-12-genericcloud-amd64.qcow2 -var kiln_binary=dist/kiln-linux-x64 images/packer/debian-kiln.pkr.hcl
#
# Written for Packer 1.10 or later with the qemu plugin (no longer built into Packer). Not run with it here: only
# Debian's packer 1.6.6 can be installed, which rejects the packer block, so test/images/packer.test.ts runs
# `packer validate` with 1.6.6 on a copy without that block (HCL syntax, variables, the builder's arguments, the
# scripts each provisioner names) and checks the block apart; the boot test runs the scripts in a real guest.

packer {
  required_version = ">= 1.10.0"
  required_plugins {
    qemu = {
      source  = "github.com/hashicorp/qemu"
      version = ">= 1.1.0"
    }
  }
}

variable "debian_image" {
  type        = string
  description = "Debian bookworm cloud image (qcow2) to start from: a local path or URL, e.g. https://cloud.debian.org/images/cloud/bookworm/latest/debian-12-genericcloud-amd64.qcow2"
}

variable "debian_image_checksum" {
  type        = string
  default     = "file:https://cloud.debian.org/images/cloud/bookworm/latest/SHA512SUMS"
  description = "Checksum of debian_image as Packer takes it: by default Debian's SHA512SUMS for the latest bookworm cloud images (debian_image's file name is looked up in it); a sha512:… of your own for another image. 'none' skips the check: never for an image you will ship."
}

variable "serial_log" {
  type        = string
  default     = "debian-kiln-serial.log"
  description = "File the build VM's serial console is written to (the kernel, systemd and kiln's stages, as on a cloud's console): what to read when a boot step times out."
}

variable "kiln_binary" {
  type        = string
  description = "The kiln Linux binary to install (dist/kiln-linux-x64 from `npm run build`)."
}

variable "accelerator" {
  type        = string
  default     = "kvm"
  description = "qemu accelerator: 'kvm' where /dev/kvm works, 'tcg' (emulation, slow) where it does not."
}

variable "disk_size" {
  type        = string
  default     = "4G"
  description = "Size the image's disk is grown to (the cloud image grows its root partition at boot)."
}

variable "output_directory" {
  type        = string
  default     = "output-debian-kiln"
  description = "Where Packer writes the finished qcow2."
}

locals {
  # Must match images/packer/debian-seed/user-data, which sets it for the build boot only.
  build_password = "kiln-packer-build"
  # Debian's cloud images give the default user sudo without a password.
  sudo_sh = "sudo env {{ .Vars }} sh -eux '{{ .Path }}'"
}

source "qemu" "debian-kiln" {
  iso_url          = var.debian_image
  iso_checksum     = var.debian_image_checksum
  disk_image       = true
  disk_size        = var.disk_size
  format           = "qcow2"
  disk_interface   = "virtio"
  net_device       = "virtio-net"
  accelerator      = var.accelerator
  memory           = 1024
  cpus             = 2
  headless         = true
  output_directory = var.output_directory
  vm_name          = "debian-kiln.qcow2"
  # The console of both boots (Debian's cloud images log to ttyS0) kept in a file beside the output.
  qemuargs = [["-serial", "file:${var.serial_log}"]]

  # The build VM's NoCloud seed, as a CD labelled cidata (Packer makes it with xorriso or genisoimage).
  cd_files = ["${path.root}/debian-seed/meta-data", "${path.root}/debian-seed/user-data"]
  cd_label = "cidata"

  communicator = "ssh"
  ssh_username = "debian"
  ssh_password = local.build_password
  ssh_timeout  = "20m"

  shutdown_command = "sudo shutdown -P now"
}

build {
  sources = ["source.qemu.debian-kiln"]

  # Each step's logic is a script of images/packer/scripts/ (the qemu first-boot test runs the same scripts in a
  # guest, in this order: test/boot/first-boot.test.ts), run as root with `sh -eux`.

  # The image's own cloud-init ran this first boot from the build seed: let it finish.
  provisioner "shell" {
    execute_command = local.sudo_sh
    script          = "${path.root}/scripts/wait-first-boot.sh"
  }

  provisioner "file" {
    source      = var.kiln_binary
    destination = "/tmp/kiln-linux-x64"
  }

  # kiln install --replace over Debian's cloud-init package, then forget the boot it did.
  provisioner "shell" {
    execute_command  = local.sudo_sh
    environment_vars = ["KILN_UPLOAD=/tmp/kiln-linux-x64"]
    script           = "${path.root}/scripts/install-kiln.sh"
  }

  # Boot once with kiln: the image is only worth capturing if kiln brings it up.
  provisioner "shell" {
    execute_command   = local.sudo_sh
    script            = "${path.root}/scripts/reboot-into-kiln.sh"
    expect_disconnect = true
  }

  # That boot was a new one and kiln's, and it finished (status 0, or 2 for warnings only).
  provisioner "shell" {
    pause_before        = "30s"
    start_retry_timeout = "15m"
    execute_command     = local.sudo_sh
    script              = "${path.root}/scripts/check-kiln-boot.sh"
  }

  # Before capture: build password locked, SSH password logins off, no trace of this boot; `kiln check` last.
  provisioner "shell" {
    execute_command  = local.sudo_sh
    environment_vars = ["BUILD_USER=debian"]
    script           = "${path.root}/scripts/prepare-capture.sh"
  }
}
